import { type RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { ENV } from '../lib/config/environment.ts';
import { agentFile } from './agent-file.ts';

/**
 * The KMS key that seals the users' tokens of per-user servers (auth.mode: per-user,
 * docs/users-own-accounts.md), created only when agent.yml has one. The functions that run turns
 * and serve the /connections routes ask it for a data key per record (envelope encryption,
 * lib/adapters/aws/kms-sealer.ts) and to unwrap one, always with the record's owner and server as
 * encryption context; nobody else is granted it. Rotated yearly by KMS; kept with the stack by
 * default, since without it no stored connection opens.
 */
export class UserConnectionKey extends Construct {
  readonly key: Key;
  readonly environment: Record<string, string>;
  readonly useStatement: PolicyStatement;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Seals the MCP agent service users\' own OAuth tokens (per-user connections).',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    this.environment = { [ENV.connectionKmsKeyId]: this.key.keyArn };
    this.useStatement = new PolicyStatement({ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resources: [this.key.keyArn] });
  }
}

/** The servers of an agent.yml with auth.mode per-user, read as written. */
export function perUserServerNames(agentConfigFile: string): string[] {
  const document = agentFile(agentConfigFile) as { mcpServers?: Record<string, unknown> };
  const servers = document?.mcpServers;
  if (!servers || typeof servers !== 'object') return [];
  return Object.entries(servers)
    .filter(([, server]) => (server as { auth?: { mode?: unknown } } | null)?.auth?.mode === 'per-user')
    .map(([name]) => name);
}
