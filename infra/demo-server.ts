import { ENV } from '../lib/config/environment.ts';
import { DEMO_SERVER_ENTRY } from './bundling.ts';
import { agentFile } from './agent-file.ts';

/**
 * Whether an agent.yml starts the demo MCP server: some server's command or arguments name the
 * bundled copy (`${DEMO_MCP_SERVER…}`) or its source file. Only then does each function bundle carry
 * the compiled demo server (about 280 KB) and its environment name it; a configuration of the
 * team's own servers deploys without it.
 */
export function usesDemoServer(agentConfigFile: string): boolean {
  const document = agentFile(agentConfigFile) as { mcpServers?: Record<string, unknown> };
  const servers = document?.mcpServers;
  if (!servers || typeof servers !== 'object') return false;
  return Object.values(servers).some((server) => {
    if (server === null || typeof server !== 'object') return false;
    const { command, args } = server as { command?: unknown; args?: unknown };
    const words = [command, ...(Array.isArray(args) ? args : [])].filter((word): word is string => typeof word === 'string');
    return words.some((word) => word.includes(ENV.demoMcpServer) || word.includes(DEMO_SERVER_ENTRY));
  });
}
