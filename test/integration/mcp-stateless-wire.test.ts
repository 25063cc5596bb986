/**
 * What the gateway puts on the wire for a 2026-07-28 server (SEP-2575, SEP-2243), against the MCP
 * SDK v2 server fixture (test/fixtures/stateless-server.ts), which checks Mcp-Param-* headers
 * itself and lists (at GET /seen) what each POST carried:
 * - a server that refuses server/discover with -32022 is asked again with a version it named, and
 *   every request then carries MCP-Protocol-Version and the `_meta` envelope; one that names only
 *   2025 revisions gets an initialize proposing the newest of them, with the version header, and
 *   no 2026 `_meta`;
 * - arguments whose schema says `x-mcp-header` travel in Mcp-Param-* headers too, encoded as the
 *   SEP says; a tool with an invalid declaration is not offered, and /health says why.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { gatewayOptions, PROJECT_ROOT, startFixtureOverHttp, stopProcess } from '../support/mcp-servers.ts';

const STATELESS_SERVER = `${PROJECT_ROOT}test/fixtures/stateless-server.ts`;
const ENVELOPE_KEYS = ['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/clientCapabilities'];

interface Seen {
  method: string;
  headers: Record<string, string>;
  metaKeys: string[];
}

describe('the MCP gateway on the wire to a 2026-07-28 server', () => {
  let child: ChildProcess | undefined;
  let gateway: ToolGateway | undefined;
  let url = '';

  const start = async (env: Record<string, string>, connectTimeoutSeconds = 20) => {
    const started = await startFixtureOverHttp(STATELESS_SERVER, env);
    child = started.process;
    url = started.url;
    gateway = createMcpGateway(gatewayOptions([{ name: 'modern', type: 'http', url, headers: {} }], { connectTimeoutSeconds }));
    return gateway;
  };
  const seen = async (): Promise<Seen[]> => (await fetch(url.replace(/\/mcp$/, '/seen'))).json() as Promise<Seen[]>;
  const call = (name: string, args: Record<string, unknown>) => gateway!.callTool(name, args, { signal: AbortSignal.timeout(20_000), timeoutMs: 20_000 });

  afterEach(async () => {
    await gateway?.close();
    await stopProcess(child);
    gateway = undefined;
    child = undefined;
  });

  it('asks again after -32022 names 2026-07-28, and sends the version header and _meta on every request', async () => {
    await start({ LEGACY: 'reject', REFUSE_DISCOVER: '2026-07-28' });

    expect((await gateway!.listTools()).map((tool) => tool.name)).toEqual(['add', 'confirm', 'where']);
    expect(await call('add', { a: 2, b: 3 })).toEqual({ ok: true, text: '5' });

    expect(await gateway!.status()).toMatchObject([{ status: 'connected', protocolVersion: '2026-07-28' }]);
    const posts = await seen();
    expect(posts.map((post) => post.method).slice(0, 4)).toEqual(['server/discover', 'server/discover', 'tools/list', 'tools/call']);
    for (const post of posts) {
      expect(post.headers['mcp-protocol-version']).toBe('2026-07-28');
      expect(post.metaKeys).toEqual(expect.arrayContaining(ENVELOPE_KEYS));
    }
  }, 60_000);

  it('falls back to initialize proposing the newest 2025 revision a -32022 names, with the version header and no 2026 _meta', async () => {
    await start({ LEGACY: 'stateless', REFUSE_DISCOVER: '2025-06-18,2025-03-26' });

    expect(await call('add', { a: 1, b: 1 })).toEqual({ ok: true, text: '2' });

    expect(await gateway!.status()).toMatchObject([{ status: 'connected', protocolVersion: '2025-06-18' }]);
    const posts = (await seen()).filter((post) => post.method !== 'server/discover');
    expect(posts[0]).toMatchObject({ method: 'initialize', headers: { 'mcp-protocol-version': '2025-06-18' } });
    for (const post of posts) {
      expect(post.headers['mcp-protocol-version']).toBe('2025-06-18');
      expect(post.metaKeys.filter((key) => key.startsWith('io.modelcontextprotocol/'))).toEqual([]);
    }
  }, 60_000);

  it('gives a server/discover that is never answered half the connect time, then initializes', async () => {
    await start({ LEGACY: 'stateless', HANG_DISCOVER: '1' }, 4);

    expect(await call('add', { a: 2, b: 2 })).toEqual({ ok: true, text: '4' });

    expect(await gateway!.status()).toMatchObject([{ status: 'connected', protocolVersion: '2025-11-25' }]);
  }, 60_000);

  it('mirrors x-mcp-header arguments in Mcp-Param-* headers, which the server checks against the body', async () => {
    await start({ LEGACY: 'reject', HEADER_TOOLS: '1' });
    await gateway!.listTools();

    expect(await call('route', { region: 'Zürich ', priority: 42, verbose: false, note: 'not a header' })).toEqual({ ok: true, text: 'Zürich  at 42' });
    expect(await call('route', { region: 'us-west1', priority: 7, note: 'verbose left out' })).toEqual({ ok: true, text: 'us-west1 at 7' });

    const calls = (await seen()).filter((post) => post.method === 'tools/call');
    expect(calls.map((post) => post.headers)).toEqual([
      {
        'mcp-protocol-version': '2026-07-28',
        'mcp-param-region': `=?base64?${Buffer.from('Zürich ', 'utf8').toString('base64')}?=`,
        'mcp-param-priority': '42',
        'mcp-param-verbose': 'false',
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-param-region': 'us-west1', 'mcp-param-priority': '7' },
    ]);
  }, 60_000);

  it('does not offer a tool whose x-mcp-header declaration is invalid, and says why in the status', async () => {
    await start({ LEGACY: 'reject', HEADER_TOOLS: '1' });

    const tools = await gateway!.listTools();

    expect(tools.map((tool) => tool.name)).toEqual(['add', 'confirm', 'where', 'route']);
    const [status] = await gateway!.status();
    expect(status?.skippedTools).toEqual([
      { name: 'bad_header', reason: expect.stringMatching(/x-mcp-header.*data.*string, integer and boolean/) },
    ]);
    await expect(call('bad_header', { data: { a: 'x' } })).rejects.toMatchObject({ code: 'tool_unknown' });
    expect((await seen()).filter((post) => post.method === 'tools/call')).toEqual([]);
  }, 60_000);
});
