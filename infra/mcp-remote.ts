import { agentFile, variable } from './agent-file.ts';

/**
 * Whether agent.yml names an MCP server reached over HTTP (an entry with a `url`): only then do the
 * functions bundle the MCP client's HTTP side (infra/bundling.ts, #mcp-remote). A `${VAR}` where
 * the servers or an entry could be counts as one: what it bundles is then there when needed.
 */
export function usesMcpRemote(agentConfigFile: string): boolean {
  const servers = agentFile(agentConfigFile).mcpServers;
  if (variable(servers)) return true;
  if (servers === null || typeof servers !== 'object') return false;
  return Object.values(servers).some((entry) => variable(entry) || (entry !== null && typeof entry === 'object' && 'url' in entry));
}
