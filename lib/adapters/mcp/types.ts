/**
 * What the MCP tool gateway needs: each server's connection, timings and limits. Declared here,
 * not taken from lib/config: agent.yml's validated servers and `tools` block fit these types where
 * the composition root (lib/configured-gateway.ts) passes them in, and TypeScript checks it there.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger } from '../../core/logger.ts';
import type { ElicitationRequest, ElicitationResult, SamplingRequest, SamplingResult, ServerRequestContext } from '../../core/ports/tools.ts';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** `decline` every elicitation, accept with the schema's `defaults`, or `ask` a person. */
type ElicitationPolicy = 'decline' | 'defaults' | 'ask';

/** What the service offers one server as a client; absent fields mean off (or the global policy). */
interface ClientFeatures {
  /** Filesystem roots answered to roots/list; absent: the capability is not declared. */
  roots?: string[];
  /** The model may read this server's resources: every URI, or those matching these patterns. */
  readResources?: boolean | string[];
  elicitation?: ElicitationPolicy;
  /** Completions with the agent's model: answered at once (`true`) or approved by a person first (`ask`). */
  sampling?: boolean | 'ask';
}

/** How to reach one server (its tool policy is the agent's business, not the gateway's). */
export type McpServerSpec =
  | ({ name: string; type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string } & ClientFeatures)
  | ({ name: string; type: 'http' | 'sse' | 'auto'; url: string; headers: Record<string, string> } & ClientFeatures & {
      /**
       * How its requests are authorized: the service's OAuth 2.1 (lib/adapters/mcp/oauth/attach.ts),
       * when agent.yml gives it an `oauth` block, or one owner's bearer token (per-user/gateway.ts).
       */
      authorization?: TransportAuthorization;
    })
  | ({
      name: string;
      /** A server in this process (embedding code, tests), reached over the SDK's InMemoryTransport. */
      type: 'in-memory';
      /**
       * Connects the server to its end of a new linked pair, at every (re)connection, e.g.
       * `(transport) => buildServer().connect(transport)`. Messages cross as objects, so no
       * maxResultBytes bound applies: the server is the process's own code.
       */
      connect(serverTransport: Transport): Promise<void>;
    } & ClientFeatures);

interface McpSettings {
  connectTimeoutSeconds: number;
  catalogTtlSeconds: number;
  reconnectMaxDelaySeconds: number;
  maxResultBytes: number;
  elicitation?: ElicitationPolicy;
}

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

/** What a Streamable HTTP or SSE transport is given to authorize its requests (connect.ts). */
export interface TransportAuthorization {
  forTransport(fetch: FetchLike): { authProvider?: OAuthClientProvider; fetch: FetchLike };
}

/** The transport a server was actually reached over. */
export type TransportKind = 'stdio' | 'http' | 'sse' | 'in-memory';
