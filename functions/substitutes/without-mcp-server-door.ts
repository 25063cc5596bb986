/**
 * Stands in for the MCP server front door (`#mcp-server-door`: lib/front-doors/mcp-server/door.ts)
 * in the Lambda bundles of a configuration that leaves it off (infra/bundling.ts,
 * functionSubstitutes): the MCP SDK's server is bundled only where agent.yml turns
 * mcpServerDoor on. A function that finds it on anyway fails its cold start, saying why.
 */
import type { FrontDoor } from '../../lib/http/front-door.ts';

export function mcpServerFrontDoor(): FrontDoor {
  throw new Error('bundled without the MCP server front door: deploy again with mcpServerDoor: true in agent.yml');
}
