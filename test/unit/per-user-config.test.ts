import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/load.ts';
import { perUserServers, serviceIdentityServers } from '../../lib/config/per-user-servers.ts';

const parse = (servers: string) => parseConfig(`mcpServers:\n${servers}`, { source: 'agent.yml', environment: { S: 'secret', T: 'token' } });

describe('mcpServers.<name>.auth', () => {
  it('defaults to the service identity, and per-user servers are split from the others', () => {
    const config = parse('  tickets: { url: https://tickets.example.com/mcp }\n  crm: { url: https://crm.example.com/mcp, auth: { mode: per-user }, oauth: { scopes: [crm.read] } }\n');
    expect(config.mcpServers.map((server) => [server.name, 'auth' in server ? server.auth.mode : undefined])).toEqual([['tickets', 'service'], ['crm', 'per-user']]);
    expect(perUserServers(config.mcpServers).map((server) => server.name)).toEqual(['crm']);
    expect(serviceIdentityServers(config.mcpServers).map((server) => server.name)).toEqual(['tickets']);
  });

  it.each([
    ['client_credentials', '{ url: https://crm.example.com/mcp, auth: { mode: per-user }, oauth: { grant: client_credentials, clientId: a, clientSecret: "${S}", authorizationServer: https://login.example.com } }', /client_credentials is the service's own identity/],
    ['an Authorization header', '{ url: https://crm.example.com/mcp, auth: { mode: per-user }, headers: { Authorization: "Bearer ${T}" } }', /each user's own token/],
    ['legacy SSE', '{ url: https://crm.example.com/sse, type: sse, auth: { mode: per-user } }', /Streamable HTTP/],
    ['an unknown mode', '{ url: https://crm.example.com/mcp, auth: { mode: everyone } }', /auth\.mode/],
  ])('refuses a per-user server with %s', (_case, entry, message) => {
    expect(() => parse(`  crm: ${entry}\n`)).toThrow(message);
  });
});
