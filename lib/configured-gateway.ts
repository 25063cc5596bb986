/**
 * The MCP tool gateway of agent.yml's `mcpServers`, OAuth included: what buildAgent uses, and
 * what a caller that needs only the tools (the conformance client) builds without the rest.
 */
import { join } from 'node:path';
import { createMcpGateway } from './adapters/mcp/gateway.ts';
import { attachOAuth, usesOAuth } from './adapters/mcp/oauth/attach.ts';
import { createFileTokenStore, TOKEN_FILE_NAME } from './adapters/mcp/oauth/file-store.ts';
import type { OAuthNetwork } from './adapters/mcp/oauth/destinations.ts';
import type { OAuthTokenStore } from './adapters/mcp/oauth/store.ts';
import type { McpGatewayOptions } from './adapters/mcp/types.ts';
import { localDataDir, runsLocally } from './config/environment.ts';
import type { AgentConfig } from './config/load.ts';
import { serviceIdentityServers } from './config/per-user-servers.ts';
import type { Logger } from './core/logger.ts';
import type { ToolGateway } from './core/ports/tools.ts';

interface ConfiguredGatewayOptions extends Pick<McpGatewayOptions, 'onElicitation' | 'onSampling'> {
  logger: Logger;
  /** Where OAuth tokens are kept; default: mcp-oauth-tokens.json under the local data folder. */
  oauthTokenStore?: OAuthTokenStore;
  /** How far OAuth discovery may reach; default: loopback allowed in a local run, not on Lambda. */
  oauthNetwork?: OAuthNetwork;
}

export function createConfiguredGateway(config: Pick<AgentConfig, 'mcpServers' | 'tools'>, options: ConfiguredGatewayOptions): ToolGateway {
  // Per-user servers (auth.mode: per-user) are reached with their owners' tokens: buildAgent wraps this gateway for them.
  const serviceServers = serviceIdentityServers(config.mcpServers);
  const servers = usesOAuth(serviceServers)
    ? attachOAuth(serviceServers, { store: options.oauthTokenStore ?? defaultTokenStore(), logger: options.logger, network: options.oauthNetwork ?? { allowLoopback: runsLocally(process.env) } })
    : serviceServers;
  const { onElicitation, onSampling } = options;
  return createMcpGateway({ servers, settings: config.tools, logger: options.logger, ...(onElicitation ? { onElicitation } : {}), ...(onSampling ? { onSampling } : {}) });
}

function defaultTokenStore(): OAuthTokenStore {
  return createFileTokenStore(join(localDataDir(process.env), TOKEN_FILE_NAME));
}
