/**
 * Imported first by the functions that run turns (stream.ts, worker.ts), so it runs before the rest
 * of the bundle is evaluated: starts agent.yml's stdio MCP servers, each a process that takes tens
 * of milliseconds to load its own code, while the function loads. The SDK's transport is handed
 * the process when it starts the same one (lib/adapters/mcp/early-start.ts); the functions end
 * whatever it did not take once the servers have connected. Only in the bundles, whose spawn can
 * hand a process over; a configuration that does not load starts nothing (runtime.ts reports it).
 */
import { takesEarlyStarts } from '#early-start-handover';
import { startEarly } from '../lib/adapters/mcp/early-start.ts';
import { stdioServerParameters } from '../lib/adapters/mcp/stdio-parameters.ts';
import { loadConfig } from '../lib/config/load.ts';
import { serviceIdentityServers } from '../lib/config/per-user-servers.ts';

if (takesEarlyStarts) {
  try {
    for (const server of serviceIdentityServers(loadConfig({ environment: process.env }).mcpServers)) {
      if (server.type === 'stdio') startEarly(stdioServerParameters(server));
    }
  } catch {
    // runtime.ts loads the configuration again and fails the start with its error.
  }
}
