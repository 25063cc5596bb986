/**
 * The demo MCP server (about 280 KB compiled) goes into the function bundles only when agent.yml
 * starts it; a deployment of the team's own MCP servers carries none of it, and its functions'
 * environment does not name it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfigPath } from '../../infra/bundling.ts';
import { usesDemoServer } from '../../infra/demo-server.ts';
import { environmentOf, templateFor } from '../support/stack-template.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

function agentYml(text: string): string {
  const file = path.join(temporaryFolder('demo-server-'), 'agent.yml');
  writeFileSync(file, text);
  return file;
}

const OWN_SERVERS = agentYml('mcpServers:\n  orders: { type: http, url: "https://orders.example.com/mcp" }\n  files: { command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] }\n');

describe('usesDemoServer', () => {
  it.each([
    ['the bundled agent.yml, through DEMO_MCP_SERVER', agentConfigPath('agent.yml'), true],
    ['a server started from the source file', agentYml('mcpServers:\n  demo: { command: node, args: ["lib/demo/server.ts"] }\n'), true],
    ['only the team’s own servers', OWN_SERVERS, false],
    ['no MCP servers at all', agentYml('maxRounds: 4\n'), false],
  ])('is %s → %s', (_case, file, expected) => {
    expect(usesDemoServer(file)).toBe(expected);
  });
});

describe('the stack with an agent.yml that does not start the demo server', () => {
  it.each(['Stream', 'Worker', 'HealthAndFallbacks'])('does not name a demo server to %s', (name) => {
    expect(environmentOf(templateFor({ agentConfig: OWN_SERVERS }), name)).not.toHaveProperty('DEMO_MCP_SERVER');
    expect(environmentOf(templateFor(), name)).toHaveProperty('DEMO_MCP_SERVER', 'demo-server.mjs');
  });
});
