/**
 * What agent.yml turns on of the MCP client's features that the agent carries out itself, as
 * extensions of the loop: the answers to servers' questions and sampling (through the router the
 * gateway was built with), the read_resource tool, images of tool results for the model.
 */
import type { AgentConfig } from '../../config/load.ts';
import type { ToolGateway } from '../../core/ports/tools.ts';
import { ms } from '../../core/time.ts';
import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import { asksUser } from '../../agent/loop/tool-policy.ts';
import { imageResultsExtension } from './image-results.ts';
import { readResourceExtension, type ReadableServer } from './read-resource-tool.ts';
import type { ServerRequestRouter } from './request-router.ts';
import { serverRequestsExtension, type AskingServer } from './server-requests-extension.ts';

interface McpClientParts {
  gateway: ToolGateway;
  /** The router the gateway answers elicitation and sampling through; without it, servers' requests are not the agent's. */
  router?: ServerRequestRouter;
}

export function mcpClientExtensions(config: Pick<AgentConfig, 'mcpServers' | 'tools' | 'model'>, parts: McpClientParts): AgentExtension[] {
  const extensions: AgentExtension[] = [];
  const asking = askingServers(config);
  if (parts.router && asking.size > 0) {
    extensions.push(serverRequestsExtension({ router: parts.router, servers: asking, modelTimeoutMs: ms(config.model.timeoutSeconds), modelName: config.model.name }));
  }
  const readable = config.mcpServers.flatMap((server): ReadableServer[] => (server.readResources === false ? [] : [{ name: server.name, allowed: server.readResources }]));
  const reading = readResourceExtension(parts.gateway, readable);
  if (reading) extensions.push(reading);
  if (config.model.imageResults) extensions.push(imageResultsExtension());
  return extensions;
}

/** Servers that may ask while a call runs: an elicitation policy of `ask`, or sampling on. */
function askingServers(config: Pick<AgentConfig, 'mcpServers' | 'tools'>): Map<string, AskingServer> {
  return new Map(
    config.mcpServers.filter((server) => asksUser(server, config.tools) || server.sampling !== false).map((server) => [server.name, { samplingNeedsApproval: server.sampling === 'ask' }]),
  );
}
