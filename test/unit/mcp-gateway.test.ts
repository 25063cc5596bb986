/**
 * The MCP gateway: its listing, caching, naming, calls and failures are tested against the fixture
 * server in this process (InMemoryTransport); what belongs to a transport (a command that does not
 * exist, a process that exits, stderr, closing processes, HTTP headers and fallbacks) on real ones.
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { OFFERED_WHILE_RECONNECTING_MS } from '../../lib/adapters/mcp/managed-server.ts';
import type { McpServerSpec } from '../../lib/adapters/mcp/types.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { startHeaderRecordingServer, type HeaderRecordingServer } from '../fixtures/header-recording-server.ts';
import { fixtureServer, gatewayOptions, inMemoryFixtureServer, type InMemoryServerSpec } from '../support/mcp-servers.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const HOUR = 3_600_000;
const noSignal = () => new AbortController().signal;
const gateways: ToolGateway[] = [];

function startGateway(...args: Parameters<typeof gatewayOptions>): ToolGateway {
  const gateway = createMcpGateway(gatewayOptions(...args));
  gateways.push(gateway);
  return gateway;
}

/** Which catalog listing of the fixture server a listTools() result came from. */
async function listingNumber(gateway: ToolGateway): Promise<string | undefined> {
  const [first] = await gateway.listTools();
  return first?.description;
}

async function callText(gateway: ToolGateway, name: string, args: Record<string, unknown> = {}) {
  const output = await gateway.callTool(name, args, { signal: noSignal(), timeoutMs: 20_000 });
  return { ok: output.ok, answer: JSON.parse(output.text) as { calledAs: string; label?: string; pid: number } };
}

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

describe('createMcpGateway', () => {
  it('follows nextCursor through every page of tools/list', async () => {
    const tools = ['t1', 't2', 't3', 't4', 't5', 't6', 't7'];
    const gateway = startGateway([
      inMemoryFixtureServer('paged', { FIXTURE_TOOLS: JSON.stringify(tools), FIXTURE_PAGE_SIZE: '3' }),
    ]);

    const listed = await gateway.listTools();

    expect(listed.map((tool) => tool.name)).toEqual(tools);
    expect(listed[0]).toEqual({
      name: 't1',
      description: 'catalog listing 1',
      parameters: { type: 'object', properties: { ms: { type: 'integer' } } },
      inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
      server: 'paged',
      originalName: 't1',
    });
  });

  it('lists a catalog once within the TTL and again after it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const gateway = startGateway([inMemoryFixtureServer('cached')], { catalogTtlSeconds: 60 });

    expect(await listingNumber(gateway)).toBe('catalog listing 1');
    vi.setSystemTime(Date.now() + 59_000);
    expect(await listingNumber(gateway)).toBe('catalog listing 1');
    vi.setSystemTime(Date.now() + 2_000);
    expect(await listingNumber(gateway)).toBe('catalog listing 2');
  });

  it.each([
    ['at the top level of the result', 'result'],
    ['in the result _meta', 'meta'],
  ])('honours a ttlMs the server sends %s', async (_where, place) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const gateway = startGateway([inMemoryFixtureServer('hinted', { FIXTURE_TTL_MS: '1000', FIXTURE_TTL_PLACE: place })], {
      catalogTtlSeconds: HOUR / 1000,
    });

    expect(await listingNumber(gateway)).toBe('catalog listing 1');
    vi.setSystemTime(Date.now() + 2_000);

    expect(await listingNumber(gateway)).toBe('catalog listing 2');
  });

  it('lists again after the server announces that its tools changed', async () => {
    const gateway = startGateway([inMemoryFixtureServer('changing', { FIXTURE_TOOLS: '["announce-change","other"]' })]);
    expect(await listingNumber(gateway)).toBe('catalog listing 1');

    await gateway.callTool('announce-change', {}, { signal: noSignal(), timeoutMs: 20_000 });

    await vi.waitFor(async () => expect(await listingNumber(gateway)).toBe('catalog listing 2'));
  });

  it('shares one refresh between concurrent listTools() calls', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const gateway = startGateway([inMemoryFixtureServer('shared')], { catalogTtlSeconds: 60 });
    await gateway.listTools();
    vi.setSystemTime(Date.now() + 61_000);

    const descriptions = await Promise.all([listingNumber(gateway), listingNumber(gateway), listingNumber(gateway)]);
    vi.setSystemTime(Date.now() + 61_000);

    expect(descriptions).toEqual(['catalog listing 2', 'catalog listing 2', 'catalog listing 2']);
    expect(await listingNumber(gateway)).toBe('catalog listing 3');
  });

  it('loses only the tools of a server whose command does not exist, and reports it', async () => {
    const logger = recordingLogger();
    const missing: McpServerSpec = {
      name: 'missing',
      type: 'stdio',
      command: '/nonexistent/mcp-server',
      args: [],
      env: { API_TOKEN: 'do-not-log-this-value' },
    };
    const gateway = startGateway([missing, fixtureServer('working')], {}, logger);

    const listed = await gateway.listTools();
    const status = await gateway.status();

    expect(listed.map((tool) => tool.name)).toEqual(['alpha', 'beta', 'gamma', 'delta', 'epsilon']);
    expect(status).toEqual([
      { name: 'missing', transport: 'stdio', status: 'failed', toolCount: 0, error: expect.stringContaining('ENOENT') },
      { name: 'working', transport: 'stdio', status: 'connected', toolCount: 5, protocolVersion: '2025-11-25' },
    ]);
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ server: 'missing' }) }),
    );
    expect(JSON.stringify(logger.entries)).not.toContain('do-not-log-this-value');
  });

  it('reconnects a server that failed to start in the background, without waiting for a listTools()', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'mcp-gateway-'));
    const workingDirectory = join(parent, 'created-later');
    try {
      const gateway = startGateway([{ ...fixtureServer('late'), cwd: workingDirectory }], { reconnectMaxDelaySeconds: 2 });
      expect(await gateway.listTools()).toEqual([]);
      const [failed] = await gateway.status();
      expect(failed).toMatchObject({ status: 'failed', error: expect.stringMatching(/ENOENT|no such file/) });

      mkdirSync(workingDirectory);

      // Backoff of 1 s, 2 s, 2 s, ...: the status (which never reconnects by itself more often
      // than the backoff allows) turns connected on its own.
      await vi.waitFor(async () => expect((await gateway.status())[0]?.status).toBe('connected'), { timeout: 20_000, interval: 200 });
      expect(await gateway.listTools()).toHaveLength(5);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('marks a server that does not connect within tools.connectTimeoutSeconds as failed', async () => {
    const gateway = startGateway([inMemoryFixtureServer('hanging', { FIXTURE_HANG: '1' })], { connectTimeoutSeconds: 1 });

    const listed = await gateway.listTools();

    expect(listed).toEqual([]);
    expect(await gateway.status()).toEqual([
      { name: 'hanging', transport: 'in-memory', status: 'failed', toolCount: 0, error: expect.stringMatching(/^did not connect and list its tools within 1000 ms \((next attempt in \d s|reconnecting now)\)$/) },
    ]);
  });

  it('renames clashing and invalid names and calls each tool by its original name on its own server', async () => {
    const gateway = startGateway([
      inMemoryFixtureServer('first', { FIXTURE_TOOLS: '["weather.get","echo"]', FIXTURE_LABEL: 'first' }),
      inMemoryFixtureServer('second', { FIXTURE_TOOLS: '["echo","plain"]', FIXTURE_LABEL: 'second' }),
    ]);

    const names = (await gateway.listTools()).map((tool) => tool.name);

    expect(names).toEqual(['first__weather_get', 'first__echo', 'second__echo', 'plain']);
    expect((await callText(gateway, 'first__weather_get')).answer).toMatchObject({ calledAs: 'weather.get', label: 'first' });
    expect((await callText(gateway, 'second__echo')).answer).toMatchObject({ calledAs: 'echo', label: 'second' });
    expect((await callText(gateway, 'plain')).answer).toMatchObject({ calledAs: 'plain', label: 'second' });
  });

  it('throws for a tool name that no server offers', async () => {
    const gateway = startGateway([inMemoryFixtureServer('only')]);
    await gateway.listTools();

    await expect(gateway.callTool('nope', {}, { signal: noSignal(), timeoutMs: 1_000 })).rejects.toMatchObject({
      code: 'tool_unknown',
      message: expect.stringContaining('Unknown tool "nope"'),
    });
  });

  it('rejects a call that outlives its timeout, and one whose signal aborts', async () => {
    const gateway = startGateway([inMemoryFixtureServer('slow', { FIXTURE_TOOLS: '["sleep"]' })]);
    await gateway.listTools();
    const controller = new AbortController();

    const timedOut = gateway.callTool('sleep', { ms: 30_000 }, { signal: noSignal(), timeoutMs: 200 });
    const aborted = gateway.callTool('sleep', { ms: 30_000 }, { signal: controller.signal, timeoutMs: 30_000 });
    controller.abort();

    await Promise.all([
      expect(timedOut).rejects.toMatchObject({ code: 'tool_timeout', timeout: true }),
      expect(aborted).rejects.toMatchObject({ code: 'tool_aborted' }),
    ]);
  });

  it('reconnects a server whose process exits at once: a call waits for it, and no name changes', async () => {
    const logger = recordingLogger();
    const gateway = startGateway([
      fixtureServer('fragile', { FIXTURE_TOOLS: '["exit","echo"]', FIXTURE_LABEL: 'fragile' }),
      fixtureServer('steady', { FIXTURE_TOOLS: '["echo"]', FIXTURE_LABEL: 'steady' }),
    ], {}, logger);
    const namesBefore = (await gateway.listTools()).map((tool) => tool.name);
    const { answer: before } = await callText(gateway, 'exit');
    await vi.waitFor(() => expect(logger.entries).toContainEqual(expect.objectContaining({ message: 'mcp server connection failed' })));

    const { answer: after } = await callText(gateway, 'fragile__echo');

    expect(after).toMatchObject({ calledAs: 'echo', label: 'fragile' });
    expect(after.pid).not.toBe(before.pid);
    expect(namesBefore).toEqual(['exit', 'fragile__echo', 'steady__echo']);
    expect((await gateway.listTools()).map((tool) => tool.name)).toEqual(namesBefore);
  });

  it('keeps the names of a server whose colliding twin is down', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'mcp-gateway-'));
    const firstDirectory = join(parent, 'first');
    mkdirSync(firstDirectory);
    try {
      const gateway = startGateway([
        { ...fixtureServer('first', { FIXTURE_TOOLS: '["echo","exit"]', FIXTURE_LABEL: 'first' }), cwd: firstDirectory },
        fixtureServer('second', { FIXTURE_TOOLS: '["echo"]', FIXTURE_LABEL: 'second' }),
      ]);
      expect((await gateway.listTools()).map((tool) => tool.name)).toEqual(['first__echo', 'exit', 'second__echo']);

      // "first" exits and cannot start again (its working directory is gone).
      rmSync(firstDirectory, { recursive: true });
      await callText(gateway, 'exit');
      await vi.waitFor(async () => expect((await gateway.status())[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/ENOENT|closed/) }), { timeout: 10_000 });
      const whileReconnecting = (await gateway.listTools()).map((tool) => tool.name);

      // Its tools stay offered for a while (it may be back in a moment), under the same names.
      expect(whileReconnecting).toEqual(['first__echo', 'exit', 'second__echo']);
      expect((await callText(gateway, 'second__echo')).answer).toMatchObject({ label: 'second' });
      await expect(gateway.callTool('first__echo', {}, { signal: noSignal(), timeoutMs: 1_000 })).rejects.toMatchObject({ code: 'tool_server_unavailable' });

      // Down for longer than that: its tools leave the catalog; the other server keeps its names.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + OFFERED_WHILE_RECONNECTING_MS + 1_000 });
      expect((await gateway.listTools()).map((tool) => tool.name)).toEqual(['second__echo']);
    } finally {
      vi.useRealTimers();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('connects lazily: nothing starts before the first listTools() or status()', async () => {
    const logger = recordingLogger();
    const gateway = startGateway([inMemoryFixtureServer('lazy')], {}, logger);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logger.entries).toEqual([]);

    const status = await gateway.status();

    expect(status).toEqual([{ name: 'lazy', transport: 'in-memory', status: 'connected', toolCount: 5, protocolVersion: '2025-11-25' }]);
  });

  it("passes a stdio server's stderr to the debug log, never to stdout", async () => {
    const logger = recordingLogger();
    const gateway = startGateway([fixtureServer('noisy')], {}, logger);

    await gateway.listTools();

    await vi.waitFor(() =>
      expect(logger.entries).toContainEqual({
        level: 'debug',
        message: 'mcp server stderr',
        fields: { server: 'noisy', line: 'paginating fixture started' },
      }),
    );
  });

  it('ends every server process on close()', async () => {
    const gateway = startGateway([fixtureServer('one'), fixtureServer('two', { FIXTURE_TOOLS: '["other"]' })]);
    await gateway.listTools();
    const pids = [(await callText(gateway, 'alpha')).answer.pid, (await callText(gateway, 'other')).answer.pid];

    await gateway.close();

    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    await expect(gateway.listTools()).rejects.toThrow('closed');
  });

  it('connects an in-process server through a new linked pair at every connection, and reports one that fails to start', async () => {
    const fixture = inMemoryFixtureServer('inside', { FIXTURE_TOOLS: '["exit","echo"]' });
    const connections: unknown[] = [];
    const counted: InMemoryServerSpec = { ...fixture, connect: (transport) => (connections.push(transport), fixture.connect(transport)) };
    const broken: InMemoryServerSpec = { name: 'broken', type: 'in-memory', connect: async () => { throw new Error('no database for the server'); } };
    const gateway = startGateway([counted, broken], { reconnectMaxDelaySeconds: 1 });
    expect((await gateway.listTools()).map((tool) => tool.name)).toEqual(['exit', 'echo']);

    await callText(gateway, 'exit');
    await vi.waitFor(() => expect(connections).toHaveLength(2), { timeout: 10_000 });

    expect((await callText(gateway, 'echo')).answer).toMatchObject({ calledAs: 'echo' });
    expect(connections[0]).not.toBe(connections[1]);
    expect(await gateway.status()).toEqual([
      { name: 'inside', transport: 'in-memory', status: 'connected', toolCount: 2, protocolVersion: '2025-11-25' },
      { name: 'broken', transport: 'in-memory', status: 'failed', toolCount: 0, error: expect.stringContaining('no database for the server') },
    ]);
  });

  it('refuses two servers with the same name', () => {
    expect(() => createMcpGateway(gatewayOptions([inMemoryFixtureServer('twice'), inMemoryFixtureServer('twice')]))).toThrow(
      'MCP server name "twice" is used twice',
    );
  });
});

describe('createMcpGateway over HTTP', () => {
  let httpServer: HeaderRecordingServer;

  afterEach(async () => {
    await httpServer?.close();
  });

  it.each([
    ['http', '/mcp'],
    ['sse', '/sse'],
  ] as const)('sends the configured headers on every %s request', async (type, path) => {
    httpServer = await startHeaderRecordingServer();
    const gateway = startGateway([
      { name: 'remote', type, url: `${httpServer.baseUrl}${path}`, headers: { Authorization: 'Bearer configured-token' } },
    ]);

    await gateway.listTools();
    const output = await gateway.callTool('whoami', {}, { signal: noSignal(), timeoutMs: 20_000 });

    expect(output).toEqual({ ok: true, text: 'Bearer configured-token' });
    // initialize, initialized, tools/list and tools/call at least (plus the SSE stream's GET).
    expect(httpServer.requests.length).toBeGreaterThanOrEqual(4);
    for (const request of httpServer.requests) expect(request.headers['authorization']).toBe('Bearer configured-token');
  });

  it('falls back to SSE when type auto meets a server without Streamable HTTP', async () => {
    httpServer = await startHeaderRecordingServer();
    const gateway = startGateway([{ name: 'remote', type: 'auto', url: `${httpServer.baseUrl}/sse`, headers: {} }]);

    const tools = await gateway.listTools();

    expect(tools.map((tool) => tool.name)).toEqual(['whoami']);
    expect(await gateway.status()).toEqual([{ name: 'remote', transport: 'sse', status: 'connected', toolCount: 1, protocolVersion: '2025-11-25' }]);
    expect(httpServer.requests[0]).toMatchObject({ method: 'POST', path: '/sse' });
  });

  it('throws when the server went away and marks it failed, to be reconnected later', async () => {
    httpServer = await startHeaderRecordingServer();
    const gateway = startGateway([{ name: 'remote', type: 'http', url: `${httpServer.baseUrl}/mcp`, headers: {} }]);
    await gateway.listTools();
    await httpServer.close();

    const call = gateway.callTool('whoami', {}, { signal: noSignal(), timeoutMs: 20_000 });

    await expect(call).rejects.toMatchObject({ code: 'tool_transport_failed' });
    // The transport's own words, for the log (health and tool messages leave them out).
    expect(await gateway.status()).toEqual([
      { name: 'remote', transport: 'http', status: 'failed', toolCount: 0, error: expect.stringMatching(/fetch failed|ECONNREFUSED/) },
    ]);
  });
});
