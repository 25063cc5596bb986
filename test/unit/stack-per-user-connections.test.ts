/**
 * Per-user connections in the stack: a KMS key (rotated, kept) created only when agent.yml has a
 * server of auth.mode per-user, named to the functions that run turns, usable by exactly those for
 * data keys; the callback route open to browsers, the other /connections routes behind the
 * authorizer; and no service token secret for a per-user server's `oauth` block.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { oauthServerNames } from '../../infra/mcp-oauth-tokens.ts';
import { perUserServerNames } from '../../infra/per-user-connections.ts';
import { logicalId, templateFor } from '../support/stack-template.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const folder = temporaryFolder('stack-per-user-');
const withPerUser = join(folder, 'agent.yml');
writeFileSync(withPerUser, `
mcpServers:
  crm:
    url: https://crm.example.com/mcp
    auth: { mode: per-user }
    oauth: { scopes: [crm.read] }
`);

describe('McpAgentStack with a per-user server', () => {
  it('reads the per-user servers from agent.yml, and makes no service token secret for their oauth block', () => {
    expect(perUserServerNames(withPerUser)).toEqual(['crm']);
    expect(oauthServerNames(withPerUser)).toEqual([]);
    const template = templateFor({ agentConfig: withPerUser });
    expect(Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((id) => id.startsWith('McpOAuthTokens'))).toEqual([]);
  });

  it('creates a rotated KMS key, kept by default, that only the stream and worker functions use for data keys', () => {
    const template = templateFor({ agentConfig: withPerUser });
    const keyId = logicalId(template, 'AWS::KMS::Key', 'UserConnectionKey');
    const key = template.findResources('AWS::KMS::Key')[keyId]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');

    const grants = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Record<string, unknown>[])
        .filter((statement) => JSON.stringify(statement.Resource).includes(keyId))
        .map((statement) => ({ roles: JSON.stringify(policy.Properties.Roles), statement })),
    );
    expect(grants.map((grant) => grant.statement)).toEqual(Array(2).fill({ Action: ['kms:GenerateDataKey', 'kms:Decrypt'], Effect: 'Allow', Resource: { 'Fn::GetAtt': [keyId, 'Arn'] } }));
    expect(grants.map((grant) => grant.roles).sort()).toEqual(['Stream', 'Worker'].map((name) => JSON.stringify([{ Ref: logicalId(template, 'AWS::IAM::Role', `Functions${name}FunctionServiceRole`) }])).sort());
  });

  it('names the key and the public base URL to the functions that run turns', () => {
    const template = templateFor({ agentConfig: withPerUser });
    const keyId = logicalId(template, 'AWS::KMS::Key', 'UserConnectionKey');
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: Match.objectLike({ CONNECTION_KMS_KEY_ID: { 'Fn::GetAtt': [keyId, 'Arn'] }, PUBLIC_BASE_URL: Match.anyValue() }) } },
    });
    expect(Object.keys(functions).sort()).toEqual([logicalId(template, 'AWS::Lambda::Function', 'FunctionsStreamFunction'), logicalId(template, 'AWS::Lambda::Function', 'FunctionsWorkerFunction')].sort());
  });

  it('routes the callback without an authorizer and the caller\'s connections with one', () => {
    const template = templateFor({ agentConfig: withPerUser, authMode: 'cognito' });
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).map((method) => method.Properties as { HttpMethod: string; AuthorizationType: string; ResourceId: { Ref: string } });
    const resources = template.findResources('AWS::ApiGateway::Resource');
    const pathOf = (id: string) => String(resources[id]!.Properties.PathPart);
    const callback = methods.filter((method) => method.HttpMethod === 'GET' && pathOf(method.ResourceId.Ref) === 'callback');
    expect(callback.map((method) => method.AuthorizationType)).toEqual(['NONE']);
    const list = methods.filter((method) => method.HttpMethod === 'GET' && pathOf(method.ResourceId.Ref) === 'connections');
    expect(list.map((method) => method.AuthorizationType)).toEqual(['COGNITO_USER_POOLS']);
    const remove = methods.filter((method) => method.HttpMethod === 'DELETE' && pathOf(method.ResourceId.Ref) === '{server}');
    expect(remove.map((method) => method.AuthorizationType)).toEqual(['COGNITO_USER_POOLS']);
  });

  it('creates no key, variable or route without a per-user server', () => {
    const template = templateFor();
    expect(Object.keys(template.findResources('AWS::KMS::Key')).filter((id) => id.startsWith('UserConnectionKey'))).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toContain('CONNECTION_KMS_KEY_ID');
  });
});
