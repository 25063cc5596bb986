/** Configuration shapes of the MCP tool gateway (built by lib/config from agent.yml). */
import type { Logger } from '../../core/logger.ts';

export type McpServerSpec =
  | { name: string; type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { name: string; type: 'http' | 'sse' | 'auto'; url: string; headers: Record<string, string> };

export interface McpGatewayOptions {
  servers: McpServerSpec[];
  /** Per server, for connect + first tools/list. */
  connectTimeoutMs: number;
  /** How long a server's tool list is cached in the warm process. */
  catalogTtlMs: number;
  /** A failed server is retried on a later listTools() after this long. */
  retryFailedAfterMs: number;
  logger: Logger;
}

/** The transport a server was actually reached over. */
export type TransportKind = 'stdio' | 'http' | 'sse';
