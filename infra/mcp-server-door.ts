import { agentFile, switchedOn } from './agent-file.ts';

/**
 * Whether agent.yml turns the MCP server front door on (`mcpServerDoor: true`, or settings without
 * `enabled: false`): only then do the functions bundle the MCP SDK's server (infra/bundling.ts,
 * #mcp-server-door) and does the API route /mcp to the streaming function.
 */
export const usesMcpServerDoor = (agentConfigFile: string): boolean => switchedOn(agentFile(agentConfigFile).mcpServerDoor);
