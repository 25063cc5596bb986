/**
 * The MCP OAuth token secret in the stack: created only when agent.yml gives a server an `oauth`
 * block, named to every function, and readable and writable by exactly those functions.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { oauthServerNames, usesOnBehalfOf } from '../../infra/mcp-oauth-tokens.ts';
import { logicalId, templateFor } from '../support/stack-template.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const folder = temporaryFolder('stack-mcp-oauth-');
const withOAuth = join(folder, 'agent.yml');
// The ${VAR}s need not be set where the stack is synthesized.
writeFileSync(withOAuth, `
mcpServers:
  demo: { command: node, args: ["\${DEMO_MCP_SERVER:-lib/demo/server.ts}"] }
  tickets:
    url: https://tickets.example.com/mcp
    oauth: { grant: client_credentials, clientId: agent, clientSecret: "\${TICKETS_CLIENT_SECRET}", authorizationServer: "https://login.example.com" }
  wiki:
    url: https://wiki.example.com/mcp
    oauth: {}
`);

const READ_WRITE = ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'];

function statementsNaming(template: Template, secretId: string): { roles: unknown; statement: Record<string, unknown> }[] {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Record<string, unknown>[])
      .filter((statement) => JSON.stringify(statement.Resource).includes(secretId))
      .map((statement) => ({ roles: policy.Properties.Roles, statement })),
  );
}

describe('McpAgentStack with MCP servers behind OAuth', () => {
  it('reads the servers with an oauth block from agent.yml as written', () => {
    expect(oauthServerNames(withOAuth)).toEqual(['tickets', 'wiki']);
    expect(oauthServerNames(join(process.cwd(), 'agent.yml'))).toEqual([]);
    expect(usesOnBehalfOf(withOAuth)).toBe(false);
  });

  it('keeps no token secret for servers called on their callers\' behalf, and bundles their exchanger', () => {
    const onBehalf = join(folder, 'on-behalf.yml');
    writeFileSync(onBehalf, 'mcpServers:\n  crm:\n    url: https://crm.example.com/mcp\n    auth: { mode: token-exchange }\n    oauth: { clientId: agent, clientSecret: "${CRM_SECRET}", authorizationServer: "https://login.example.com" }\n');
    expect(oauthServerNames(onBehalf)).toEqual([]);
    expect(usesOnBehalfOf(onBehalf)).toBe(true);
  });

  it('creates one token secret holding an empty document, kept by default, and outputs its ARN', () => {
    const template = templateFor({ agentConfig: withOAuth });
    const secretId = logicalId(template, 'AWS::SecretsManager::Secret', 'McpOAuthTokens');
    const secret = template.findResources('AWS::SecretsManager::Secret')[secretId]!;

    expect(secret.Properties.SecretString).toBe('{"version":1,"servers":{}}');
    expect(secret.DeletionPolicy).toBe('Retain');
    template.hasOutput('McpOAuthTokenSecretArn', { Value: { Ref: secretId } });
  });

  it('names the secret in every function\'s environment', () => {
    const template = templateFor({ agentConfig: withOAuth });
    const secretId = logicalId(template, 'AWS::SecretsManager::Secret', 'McpOAuthTokens');
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: Match.objectLike({ MCP_OAUTH_TOKEN_SECRET_ARN: { Ref: secretId } }) } },
    });
    expect(Object.keys(functions)).toHaveLength(3);
  });

  it('lets exactly the three functions read and write that one secret, and nothing else', () => {
    const template = templateFor({ agentConfig: withOAuth });
    const secretId = logicalId(template, 'AWS::SecretsManager::Secret', 'McpOAuthTokens');
    const grants = statementsNaming(template, secretId);

    expect(grants.map((grant) => grant.statement)).toEqual(Array(3).fill({ Action: READ_WRITE, Effect: 'Allow', Resource: { Ref: secretId } }));
    expect(grants.map((grant) => JSON.stringify(grant.roles)).sort()).toEqual(
      ['Stream', 'Worker', 'HealthAndFallbacks'].map((name) => JSON.stringify([{ Ref: logicalId(template, 'AWS::IAM::Role', `Functions${name}FunctionServiceRole`) }])).sort(),
    );
    // Writing is allowed on this secret only: the model key stays read-only.
    const writes = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[]).filter((statement) => [statement.Action].flat().includes('secretsmanager:PutSecretValue')),
    );
    expect(writes.every((statement) => JSON.stringify(statement.Resource) === JSON.stringify({ Ref: secretId }))).toBe(true);
  });

  it('creates no token secret, variable or permission when no server uses OAuth', () => {
    const template = templateFor();
    expect(Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((id) => id.startsWith('McpOAuthTokens'))).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/MCP_OAUTH_TOKEN_SECRET_ARN|secretsmanager:PutSecretValue/);
  });
});
