import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * Whether agent.yml turns the MCP server front door on (`mcpServerDoor: true`, or settings without
 * `enabled: false`), read as written: only then do the functions bundle the MCP SDK's server
 * (infra/bundling.ts, #mcp-server-door) and does the API route /mcp to the streaming function.
 * A `${VAR}` could turn it on, so it counts as on.
 */
export function usesMcpServerDoor(agentConfigFile: string): boolean {
  const document = parseYaml(readFileSync(agentConfigFile, 'utf8')) as { mcpServerDoor?: unknown } | null;
  const setting = document?.mcpServerDoor;
  const on = (value: unknown) => value === true || value === 'true' || (typeof value === 'string' && value.includes('${'));
  if (on(setting)) return true;
  if (setting === null || typeof setting !== 'object') return false;
  const enabled = (setting as { enabled?: unknown }).enabled;
  return enabled === undefined || on(enabled);
}
