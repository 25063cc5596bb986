/**
 * Deep search as the agent takes it (`#deep-search` in package.json): a Lambda bundle of a
 * configuration without it leaves it out (infra/bundling.ts, functions/substitutes/without-deep-search.ts).
 *
 * Checked once, when the agent is made: the server is one of mcpServers, and its policy neither
 * leaves the tools out nor holds their calls for approval (deep search calls them itself, with no
 * one to ask; a `destructive` rule is checked again against the tools' annotations when called).
 */
import type { AgentConfig } from '../../config/load.ts';
import { ConfigError } from '../../core/errors.ts';
import type { ToolGateway } from '../../core/ports/tools.ts';
import { ms } from '../../core/time.ts';
import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import { applyToolPolicies } from '../../agent/loop/tool-policy.ts';
import { deepSearchExtension } from './extension.ts';

export function configuredDeepSearch(config: AgentConfig, services: { gateway?: ToolGateway }): AgentExtension {
  const { enabled: _enabled, server: serverName, tool, readTool, ...limits } = config.deepSearch;
  const problem = (text: string) => new ConfigError(`${config.source}: deepSearch: ${text}`);
  if (serverName === undefined || tool === undefined) throw problem('give "server" (the MCP server, a name under mcpServers) and "tool" (its search tool, as the server lists it)');
  const server = config.mcpServers.find((entry) => entry.name === serverName);
  if (!server) throw problem(`server "${serverName}" is not one of mcpServers (${config.mcpServers.map((entry) => entry.name).join(', ') || 'none configured'})`);
  if (!services.gateway) throw problem('the agent has no tool gateway: code that calls configuredExtensions passes `gateway`');
  for (const [key, name] of [['tool', tool], ['readTool', readTool]] as const) {
    if (name === undefined) continue;
    // As a read-only tool would be judged: what a rule says regardless of annotations.
    const [offered] = applyToolPolicies([{ name, description: '', parameters: {}, server: serverName, annotations: { readOnlyHint: true } }], new Map([[serverName, server]]));
    if (!offered) throw problem(`${key} "${name}" is left out by mcpServers.${serverName}'s allowTools or denyTools: allow it, or choose another tool`);
    if (offered.needsApproval) throw problem(`${key} "${name}" needs approval under mcpServers.${serverName}.requireApproval; deep search calls its tools with no one to ask: exempt it from requireApproval`);
  }
  return deepSearchExtension({ server: serverName, tool, ...(readTool === undefined ? {} : { readTool }), ...limits, modelTimeoutMs: ms(config.model.timeoutSeconds), policy: server, gateway: services.gateway });
}
