import { describe, expect, it } from 'vitest';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { InputError, NotFoundError } from '../../lib/core/errors.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ConnectionCallback, UserConnectionsApi } from '../../lib/core/ports/user-connections.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { createHttpHandler } from '../../lib/front-doors/handlers.ts';
import { nativeFrontDoor } from '../../lib/front-doors/native/door.ts';
import { createScriptedModel } from '../../lib/testing/scripted-model.ts';
import { testGateway } from '../support/agent-fixture.ts';

/** Connections as the routes see them: what each call was asked, and the answers a test chooses. */
function recordingConnections() {
  const asked: Array<[string, ...unknown[]]> = [];
  const api: UserConnectionsApi = {
    async listConnections(owner) {
      asked.push(['list', owner]);
      return [{ server: 'crm', connected: true, scopes: ['crm.read'], expiresAt: '2030-01-01T00:00:00.000Z', connectedAt: '2029-01-01T00:00:00.000Z' }];
    },
    async disconnect(owner, server) {
      asked.push(['disconnect', owner, server]);
      if (server !== 'crm') throw new NotFoundError('connection_server_unknown', `There is no MCP server "${server}" that users connect to with their own account.`);
    },
    async completeConnection(server, callback: ConnectionCallback) {
      asked.push(['complete', server, callback]);
      if (callback.error) throw new InputError('connection_refused', `The provider did not connect the account: ${callback.error} (${callback.errorDescription}).`);
      if (callback.state !== 'good') throw new InputError('connection_state_invalid', 'This link is unknown, expired or already used.');
      return { server };
    },
  };
  return { api, asked };
}

function http(connections?: UserConnectionsApi) {
  const agent = createAgent(parseConfig('{}', { source: 'test.yml', environment: {} }), { ownerCounters: createMemoryOwnerCounters(), model: createScriptedModel([]), gateway: testGateway(), store: createMemoryConversationStore(), logger: silentLogger, ...(connections ? { connections } : {}) });
  const handle = createHttpHandler({ agent, logger: silentLogger, maxBodyBytes: 64 * 1024 });
  return (method: string, path: string, options: { owner?: string; query?: Record<string, string> } = {}) =>
    handle({ method, path, headers: {}, body: undefined, ...(options.owner ? { owner: options.owner } : {}), ...(options.query ? { query: options.query } : {}) });
}

describe('HTTP connection routes', () => {
  it("lists and deletes the caller's own connections", async () => {
    const { api, asked } = recordingConnections();
    const send = http(api);

    const listed = await send('GET', '/connections', { owner: 'alice' });
    const deleted = await send('DELETE', '/connections/crm', { owner: 'alice' });
    const unknown = await send('DELETE', '/connections/nowhere', { owner: 'alice' });

    expect(listed.statusCode).toBe(200);
    expect(JSON.parse(listed.body)).toEqual({ connections: [{ server: 'crm', connected: true, scopes: ['crm.read'], expiresAt: '2030-01-01T00:00:00.000Z', connectedAt: '2029-01-01T00:00:00.000Z' }] });
    expect(deleted.statusCode).toBe(204);
    expect(unknown.statusCode).toBe(404);
    expect(JSON.parse(unknown.body).error.code).toBe('connection_server_unknown');
    expect(asked.slice(0, 2)).toEqual([['list', 'alice'], ['disconnect', 'alice', 'crm']]);
  });

  it('lists none and deletes nothing where no server is per-user', async () => {
    const send = http();
    expect(JSON.parse((await send('GET', '/connections', { owner: 'alice' })).body)).toEqual({ connections: [] });
    const deleted = await send('DELETE', '/connections/crm', { owner: 'alice' });
    expect(deleted.statusCode).toBe(404);
    expect(JSON.parse(deleted.body).error.code).toBe('connection_server_unknown');
    const callback = await send('GET', '/connections/crm/callback', { query: { code: 'c', state: 's' } });
    expect(callback.statusCode).toBe(404);
    expect(callback.headers['content-type']).toMatch(/^text\/html/);
  });

  it('answers the callback with an HTML page that escapes what the provider sent, never JSON', async () => {
    const { api, asked } = recordingConnections();
    const send = http(api);

    const connected = await send('GET', '/connections/crm/callback', { query: { code: 'the-code', state: 'good' } });
    const refused = await send('GET', '/connections/crm/callback', { query: { state: 'good', error: 'access_denied', error_description: '<img src=x onerror=alert(1)>' } });
    const stale = await send('GET', '/connections/crm/callback', { query: { code: 'the-code', state: 'used' } });

    expect(connected.statusCode).toBe(200);
    expect(connected.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; frame-ancestors 'none'" });
    expect(connected.body).toContain('Your crm account is connected');
    expect(connected.body).not.toContain('the-code');
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('connection_refused');
    expect(refused.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(refused.body).not.toContain('<img');
    expect(stale.statusCode).toBe(400);
    expect(stale.body).toContain('connection_state_invalid');
    expect(asked[0]).toEqual(['complete', 'crm', { code: 'the-code', state: 'good' }]);
  });

  it('serves the callback to anyone (a browser redirect), and the other connection routes only to callers', () => {
    expect(nativeFrontDoor.servesAnyone?.({ method: 'GET', path: '/connections/crm/callback' })).toBe(true);
    expect(nativeFrontDoor.servesAnyone?.({ method: 'GET', path: '/connections' })).toBe(false);
    expect(nativeFrontDoor.servesAnyone?.({ method: 'DELETE', path: '/connections/crm' })).toBe(false);
    expect(nativeFrontDoor.servesAnyone?.({ method: 'POST', path: '/connections/crm/callback' })).toBe(false);
  });
});
