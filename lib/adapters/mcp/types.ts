/** What the MCP tool gateway needs of the configuration: each server's connection, timings and limits. */
import type { AgentConfig, McpServerConfig } from '../../config/load.ts';
import type { Logger } from '../../core/logger.ts';
import type { McpServerAuthorization } from './oauth/transport.ts';

type StdioServer = Extract<McpServerConfig, { type: 'stdio' }>;
type RemoteServer = Exclude<McpServerConfig, StdioServer>;

/** How to reach one server (its tool policy is the agent's business, not the gateway's). */
export type McpServerSpec =
  | (Pick<StdioServer, 'name' | 'type' | 'command' | 'args' | 'env'> & { cwd?: string })
  | (Pick<RemoteServer, 'name' | 'type' | 'url' | 'headers'> & {
      /** OAuth 2.1 for this server (lib/adapters/mcp/oauth/attach.ts), when agent.yml gives it an `oauth` block. */
      authorization?: McpServerAuthorization;
    });

export type McpSettings = Pick<
  AgentConfig['tools'],
  'connectTimeoutSeconds' | 'catalogTtlSeconds' | 'retryFailedAfterSeconds' | 'maxResultBytes'
>;

export interface McpGatewayOptions {
  servers: McpServerSpec[];
  /** connectTimeoutSeconds: per server, to connect and list its tools; catalogTtlSeconds: how long
   * a server's tool list is cached; retryFailedAfterSeconds: a failed server is retried after this;
   * maxResultBytes: a message larger than this is cut off while it arrives, failing only its call. */
  settings: McpSettings;
  logger: Logger;
}

/** The transport a server was actually reached over. */
export type TransportKind = 'stdio' | 'http' | 'sse';
