/** agent.yml's `mcpServerDoor` (lib/config/schema.ts), as the door uses it. */
export interface McpServerDoorSettings {
  enabled: boolean;
  /** The tool's name as MCP clients list it (`ask` by default). */
  toolName: string;
  toolDescription: string;
  messageDescription: string;
  conversationIdDescription: string;
}

/** The one path the door serves: POST for every JSON-RPC message (GET and DELETE answer 405, as a stateless server does). */
export const MCP_PATH = '/mcp';
