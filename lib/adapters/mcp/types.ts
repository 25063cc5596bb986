/** What the MCP tool gateway needs of the configuration: each server's connection, timings and limits. */
import type { AgentConfig, McpServerConfig } from '../../config/load.ts';
import type { Logger } from '../../core/logger.ts';
import type { ElicitationRequest, ElicitationResult, SamplingRequest, SamplingResult, ServerRequestContext } from '../../core/ports/tools.ts';
import type { McpServerAuthorization } from './oauth/transport.ts';

type StdioServer = Extract<McpServerConfig, { type: 'stdio' }>;
type RemoteServer = Exclude<McpServerConfig, StdioServer>;

/** What the service offers one server as a client; absent fields mean off (or the global policy). */
type ClientFeatures = Partial<Pick<StdioServer, 'roots' | 'readResources' | 'elicitation' | 'sampling'>>;

/** How to reach one server (its tool policy is the agent's business, not the gateway's). */
export type McpServerSpec =
  | (Pick<StdioServer, 'name' | 'type' | 'command' | 'args' | 'env'> & { cwd?: string } & ClientFeatures)
  | (Pick<RemoteServer, 'name' | 'type' | 'url' | 'headers'> & ClientFeatures & {
      /** OAuth 2.1 for this server (lib/adapters/mcp/oauth/attach.ts), when agent.yml gives it an `oauth` block. */
      authorization?: McpServerAuthorization;
    });

type McpSettings = Pick<
  AgentConfig['tools'],
  'connectTimeoutSeconds' | 'catalogTtlSeconds' | 'reconnectMaxDelaySeconds' | 'maxResultBytes'
> &
  Partial<Pick<AgentConfig['tools'], 'elicitation'>>;

export interface McpGatewayOptions {
  servers: McpServerSpec[];
  /** connectTimeoutSeconds: per server, to connect and list its tools; catalogTtlSeconds: how long
   * a server's tool list is cached; reconnectMaxDelaySeconds: the longest wait between attempts to
   * reconnect a failed server; maxResultBytes: a message larger than this is cut off while it
   * arrives, failing only its call; elicitation: the policy for servers that do not set their own. */
  settings: McpSettings;
  logger: Logger;
  /**
   * Answers elicitations of servers whose policy is `ask` (the agent may pause the turn and ask a
   * person). Without it, those elicitations are declined.
   */
  onElicitation?: (request: ElicitationRequest, context: ServerRequestContext) => Promise<ElicitationResult>;
  /**
   * Answers sampling requests of servers with `sampling: true`, with the agent's model. Without it,
   * sampling is not offered to any server.
   */
  onSampling?: (request: SamplingRequest, context: ServerRequestContext) => Promise<SamplingResult>;
}

/** The transport a server was actually reached over. */
export type TransportKind = 'stdio' | 'http' | 'sse';
