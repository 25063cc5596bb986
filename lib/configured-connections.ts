/**
 * Per-user connections of agent.yml's `auth.mode: per-user` servers (docs/users-own-accounts.md),
 * composed: the gateway that calls those servers as each owner, the API of the /connections
 * routes, and the extension that pauses a call for an owner who has not connected. Loaded by
 * buildAgent through `#per-user-connections` (package.json imports), so a Lambda bundle whose
 * agent.yml has no per-user server carries none of it (functions/substitutes/without-per-user-connections.ts).
 *
 * Sealing key: CONNECTION_KMS_KEY_ID (the stack creates the key and sets it), else, in a local run,
 * the 0600 key file CONNECTION_KEY_FILE (default: connection-key in LOCAL_DATA_DIR), made at first use.
 */
import { join, resolve } from 'node:path';
import { createDynamoConnectionStore } from './adapters/dynamodb/connection-store.ts';
import type { DynamoDocuments } from './adapters/dynamodb/documents.ts';
import type { OAuthNetwork } from './adapters/mcp/oauth/destinations.ts';
import { PerUserAuthorization } from './adapters/mcp/per-user/authorization.ts';
import { createMemoryConnectionStore, type ConnectionStore } from './adapters/mcp/per-user/connection-store.ts';
import { UserConnections } from './adapters/mcp/per-user/connections.ts';
import { withPerUserServers } from './adapters/mcp/per-user/gateway.ts';
import { createKeySealer, type RecordSealer } from './adapters/mcp/per-user/sealer.ts';
import type { AgentExtension } from './agent/extension-api/extension.ts';
import { ENV, localDataDir, runsLocally, type Environment } from './config/environment.ts';
import type { AgentConfig } from './config/load.ts';
import { perUserServers } from './config/per-user-servers.ts';
import { oauthSchema } from './config/schema.ts';
import { ConfigError } from './core/errors.ts';
import type { Logger } from './core/logger.ts';
import type { ToolGateway } from './core/ports/tools.ts';
import type { UserConnectionsApi } from './core/ports/user-connections.ts';
import { connectOnCallExtension } from './extensions/mcp/connect-on-call.ts';
import { loadConnectionKey } from './local/connection-key.ts';

export interface ConnectionParts {
  /** The table the connections are kept in, beside the conversations; without it, this process's memory. */
  dynamo?: DynamoDocuments;
  store?: ConnectionStore;
  /** What seals the tokens; default: from the environment (above). */
  sealer?: RecordSealer;
  logger: Logger;
  environment: Environment;
}

export interface ConfiguredConnections {
  gateway: ToolGateway;
  api: UserConnectionsApi;
  extension: AgentExtension;
}

/** Undefined when no server of agent.yml is per-user. */
export function configuredConnections(config: Pick<AgentConfig, 'mcpServers' | 'tools' | 'conversation'>, inner: ToolGateway, parts: ConnectionParts): ConfiguredConnections | undefined {
  const servers = perUserServers(config.mcpServers);
  if (servers.length === 0) return undefined;
  const { environment, logger } = parts;
  const store = parts.store ?? (parts.dynamo ? createDynamoConnectionStore({ client: parts.dynamo, tableName: config.conversation.tableName }) : createMemoryConnectionStore());
  const sealer = parts.sealer ?? environmentSealer(environment);
  const publicBaseUrl = () => {
    const url = environment[ENV.publicBaseUrl]?.trim();
    if (!url) throw new ConfigError(`${ENV.publicBaseUrl} is not set: per-user servers (auth.mode: per-user) send people back to <${ENV.publicBaseUrl}>/connections/{server}/callback`);
    return url;
  };
  const network: OAuthNetwork = { allowLoopback: runsLocally(environment) };
  const authorizations = new Map(servers.map((server) => [server.name, new PerUserAuthorization({ name: server.name, url: server.url, oauth: server.oauth ?? oauthSchema.parse({}) }, { store, sealer, publicBaseUrl, network })]));
  let listWith: ((owner: string | undefined, server: string) => Promise<void>) | undefined;
  const connections = new UserConnections({
    servers: authorizations,
    store,
    sealer,
    logger,
    onConnected: (owner, server) => listWith?.(owner, server) ?? Promise.resolve(),
  });
  const gateway = withPerUserServers({ inner, servers, connections, store, logger, settings: config.tools });
  listWith = gateway.listWith;
  return { gateway, api: connections, extension: connectOnCallExtension(new Set(servers.map((server) => server.name))) };
}

/** KMS where the stack set a key; the local key file in a local run; nothing else. */
function environmentSealer(environment: Environment): RecordSealer {
  const keyId = environment[ENV.connectionKmsKeyId]?.trim();
  if (keyId) return lazySealer(`KMS key ${keyId}`, async () => {
    const [{ KMSClient }, { createKmsSealer }] = await Promise.all([import('@aws-sdk/client-kms'), import('./adapters/aws/kms-sealer.ts')]);
    return createKmsSealer({ client: new KMSClient({}), keyId });
  });
  if (!runsLocally(environment)) {
    throw new ConfigError(`agent.yml has per-user servers (auth.mode: per-user), but ${ENV.connectionKmsKeyId} is not set: deploy with the stack in infra/, which creates the KMS key that seals the users' tokens`);
  }
  const file = resolve(environment[ENV.connectionKeyFile]?.trim() || join(localDataDir(environment), 'connection-key'));
  return lazySealer(`key file ${file}`, async () => createKeySealer(loadConnectionKey(file), `key file ${file}`));
}

/** The key is read (or made) at first use, not at start. */
function lazySealer(description: string, create: () => Promise<RecordSealer>): RecordSealer {
  let sealer: Promise<RecordSealer> | undefined;
  const get = () => (sealer ??= create().catch((error: unknown) => {
    sealer = undefined;
    throw error;
  }));
  return {
    description,
    seal: async (plaintext, context) => (await get()).seal(plaintext, context),
    open: async (sealed, context) => (await get()).open(sealed, context),
  };
}
