import { type RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ENV } from '../lib/config/environment.ts';
import { agentFile } from './agent-file.ts';

export interface McpOAuthTokensProps {
  removalPolicy: RemovalPolicy;
}

/**
 * Where the functions keep the OAuth tokens of remote MCP servers: one secret, created only when
 * agent.yml gives a server an `oauth` block. Every function connects to the MCP servers (health
 * included) and may renew a token, so each may read and write exactly this secret; its ARN is in
 * MCP_OAUTH_TOKEN_SECRET_ARN. The stack creates it holding an empty document: tokens arrive from
 * the functions (client_credentials) or from an operator's `npm run mcp-login` pointed at it.
 *
 * Encrypted with the AWS-managed key (aws/secretsmanager), whose key policy already allows the
 * account's principals through Secrets Manager: no kms statement is needed.
 */
export class McpOAuthTokens extends Construct {
  readonly secret: Secret;
  readonly environment: Record<string, string>;
  readonly readWriteStatement: PolicyStatement;

  constructor(scope: Construct, id: string, props: McpOAuthTokensProps) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'OAuth tokens of the MCP servers of the MCP agent service (written by the functions and by npm run mcp-login).',
      // An empty document, nothing secret: the functions and the login command fill it.
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ version: 1, servers: {} })),
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.secret).acknowledge({ id: 'AwsSolutions::AwsSolutions-SMG4', reason: 'The secret holds OAuth tokens the functions refresh themselves with the authorization server; Secrets Manager rotation has nothing to rotate here.' });
    this.environment = { [ENV.mcpOAuthTokenSecretArn]: this.secret.secretArn };
    this.readWriteStatement = new PolicyStatement({
      actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
      resources: [this.secret.secretArn],
    });
  }
}

/**
 * The servers of an agent.yml that have an `oauth` block for the service's own identity, read as written: the synth needs no
 * environment for the `${VAR}`s the functions will fill in.
 */
export function oauthServerNames(agentConfigFile: string): string[] {
  const document = agentFile(agentConfigFile) as { mcpServers?: Record<string, unknown> };
  const servers = document?.mcpServers;
  if (!servers || typeof servers !== 'object') return [];
  return Object.entries(servers)
    .filter(([, server]) => server !== null && typeof server === 'object' && (server as { oauth?: unknown }).oauth != null)
    // A per-user server's `oauth` block is its users' client settings: their tokens are sealed in the table (infra/per-user-connections.ts).
    .filter(([, server]) => (server as { auth?: { mode?: unknown } }).auth?.mode !== 'per-user')
    .map(([name]) => name);
}
