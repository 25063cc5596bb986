/**
 * Sessions and connections heal: server-everything restarted mid-conversation over each transport
 * (stdio: killed, and started again by the gateway; Streamable HTTP: its sessions forgotten; legacy
 * SSE: its stream closed) costs no call and no tool name, a dead server shows as failed in the
 * status and a recovered one as connected; and a small server of ours answers 404 for a forgotten
 * session, as the spec says (server-everything answers 400 "No valid session ID").
 *
 * A server that dies while a call waits for its answer fails that call at once, as a stdio server
 * does, not after the call's whole timeout: over Streamable HTTP with SSE responses (whether or not
 * the server keeps events the SDK could resume from), and over legacy SSE, whose one event stream
 * carries every answer.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { EVERYTHING_ENTRY, freePort, gatewayOptions, PROJECT_ROOT, startEverythingOverHttp, startFixtureOverHttp, stopProcess } from '../support/mcp-servers.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const SESSION_SERVER = `${PROJECT_ROOT}test/fixtures/session-http-server.ts`;
const call = (gateway: ToolGateway, name: string, args: Record<string, unknown> = {}) =>
  gateway.callTool(name, args, { signal: new AbortController().signal, timeoutMs: 20_000 });

const children: ChildProcess[] = [];
const gateways: ToolGateway[] = [];

afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
  await Promise.all(children.splice(0).map((child) => stopProcess(child)));
});

/** The server-everything stdio processes this test process started (the gateway's children). */
function everythingChildren(): number[] {
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes(EVERYTHING_ENTRY) && line.trim().endsWith('stdio')).map((line) => Number.parseInt(line.trim(), 10));
}

async function startSessionServer(port: number): Promise<ChildProcess> {
  const { process: child } = await startFixtureOverHttp(SESSION_SERVER, {}, port);
  children.push(child);
  return child;
}

describe('the MCP gateway when a server restarts', () => {
  it('starts a new session at once when our own server answers 404 for the old one, and the call succeeds', async () => {
    const port = await freePort();
    const logger = recordingLogger();
    const gateway = createMcpGateway(gatewayOptions([{ name: 'sessions', type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} }], {}, logger));
    gateways.push(gateway);
    const first = await startSessionServer(port);
    await gateway.listTools();
    const before = JSON.parse((await call(gateway, 'whoami')).text) as { pid: number; session: string };

    await stopProcess(first);
    await startSessionServer(port);
    const after = JSON.parse((await call(gateway, 'whoami')).text) as { pid: number; session: string };

    expect(after.pid).not.toBe(before.pid);
    expect(after.session).not.toBe(before.session);
    expect(logger.entries).toContainEqual(expect.objectContaining({ message: 'mcp session expired, starting a new one' }));
    expect(await gateway.status()).toMatchObject([{ name: 'sessions', status: 'connected', toolCount: 2 }]);
  }, 60_000);

  it('goes on with server-everything restarted mid-conversation, and /health tells the truth on the way', async () => {
    const logger = recordingLogger();
    const started = await startEverythingOverHttp('streamableHttp');
    children.push(started.process);
    const gateway = createMcpGateway(
      gatewayOptions([{ name: 'everything', type: 'http', url: `http://127.0.0.1:${started.port}/mcp`, headers: {} }], { reconnectMaxDelaySeconds: 2 }, logger),
    );
    gateways.push(gateway);
    const names = (await gateway.listTools()).map((tool) => tool.name);
    expect(await call(gateway, 'echo', { message: 'before' })).toEqual({ ok: true, text: 'Echo: before' });

    // Dead: the status pings, and says so (within its few seconds of caching).
    await stopProcess(started.process);
    await vi.waitFor(async () => expect((await gateway.status())[0]).toMatchObject({ status: 'failed' }), { timeout: 20_000, interval: 500 });

    // Back (a new process that knows no session): the status turns connected by itself, and the
    // conversation's next call works under the same tool names.
    const restarted = await startEverythingOverHttp('streamableHttp', started.port);
    children.push(restarted.process);
    await vi.waitFor(async () => expect((await gateway.status())[0]).toMatchObject({ status: 'connected' }), { timeout: 20_000, interval: 500 });

    expect(await call(gateway, 'echo', { message: 'after' })).toEqual({ ok: true, text: 'Echo: after' });
    expect((await gateway.listTools()).map((tool) => tool.name)).toEqual(names);
  }, 90_000);

  it('goes on with server-everything over legacy SSE restarted mid-conversation: its stream closes, the gateway reconnects', async () => {
    const logger = recordingLogger();
    const started = await startEverythingOverHttp('sse');
    children.push(started.process);
    const gateway = createMcpGateway(
      gatewayOptions([{ name: 'everything', type: 'sse', url: `http://127.0.0.1:${started.port}/sse`, headers: {} }], { reconnectMaxDelaySeconds: 2 }, logger),
    );
    gateways.push(gateway);
    const names = (await gateway.listTools()).map((tool) => tool.name);
    expect(await call(gateway, 'echo', { message: 'before' })).toEqual({ ok: true, text: 'Echo: before' });

    await stopProcess(started.process);
    await vi.waitFor(async () => expect((await gateway.status())[0]).toMatchObject({ status: 'failed' }), { timeout: 20_000, interval: 500 });
    const restarted = await startEverythingOverHttp('sse', started.port);
    children.push(restarted.process);

    // The call waits briefly for the reconnection, or the status finds it back first.
    await vi.waitFor(async () => expect(await call(gateway, 'echo', { message: 'after' })).toEqual({ ok: true, text: 'Echo: after' }), { timeout: 30_000, interval: 1_000 });
    expect((await gateway.status())[0]).toMatchObject({ status: 'connected' });
    expect((await gateway.listTools()).map((tool) => tool.name)).toEqual(names);
  }, 90_000);

  it('goes on with server-everything over stdio killed mid-conversation: a new process, the same names', async () => {
    const logger = recordingLogger();
    const gateway = createMcpGateway(
      gatewayOptions([{ name: 'everything', type: 'stdio', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'], env: {} }], { reconnectMaxDelaySeconds: 2 }, logger),
    );
    gateways.push(gateway);
    const names = (await gateway.listTools()).map((tool) => tool.name);
    expect(await call(gateway, 'echo', { message: 'before' })).toEqual({ ok: true, text: 'Echo: before' });
    const [first] = everythingChildren();
    expect(first).toBeDefined();

    process.kill(first!, 'SIGKILL');

    await vi.waitFor(() => expect(everythingChildren().filter((pid) => pid !== first)).toHaveLength(1), { timeout: 20_000, interval: 250 });
    expect(await call(gateway, 'echo', { message: 'after' })).toEqual({ ok: true, text: 'Echo: after' });
    expect((await gateway.status())[0]).toMatchObject({ status: 'connected' });
    expect((await gateway.listTools()).map((tool) => tool.name)).toEqual(names);
    expect(logger.entries).toContainEqual(expect.objectContaining({ message: 'mcp server connection failed' }));
  }, 90_000);

  it('renews the session when server-everything restarted between two calls (400 "No valid session ID")', async () => {
    const logger = recordingLogger();
    const started = await startEverythingOverHttp('streamableHttp');
    children.push(started.process);
    const gateway = createMcpGateway(
      gatewayOptions([{ name: 'everything', type: 'http', url: `http://127.0.0.1:${started.port}/mcp`, headers: {} }], {}, logger),
    );
    gateways.push(gateway);
    await gateway.listTools();
    expect(await call(gateway, 'get-sum', { a: 1, b: 2 })).toMatchObject({ ok: true });

    await stopProcess(started.process);
    const restarted = await startEverythingOverHttp('streamableHttp', started.port);
    children.push(restarted.process);

    expect(await call(gateway, 'get-sum', { a: 2, b: 3 })).toEqual({ ok: true, text: 'The sum of 2 and 3 is 5.' });
  }, 90_000);
});

describe('the MCP gateway when a server dies during a call', () => {
  it.each([
    ['that keeps no events (the stream cannot be resumed)', {}],
    ['that keeps events (the SDK tries to resume the stream, and cannot)', { EVENT_STORE: '1' }],
  ])('fails a call answered over SSE within seconds, not its timeout, when a Streamable HTTP server %s is killed mid-call', async (_case, env) => {
    const server = await startFixtureOverHttp(SESSION_SERVER, env);
    children.push(server.process);
    const gateway = createMcpGateway(gatewayOptions([{ name: 'sessions', type: 'http', url: server.url, headers: {} }], { reconnectMaxDelaySeconds: 2 }));
    gateways.push(gateway);
    await gateway.listTools();
    const started = new Promise<void>((resolve) => server.process.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('started') && resolve()));

    const before = Date.now();
    const outcome = gateway.callTool('wait', { seconds: 300 }, { signal: new AbortController().signal, timeoutMs: 45_000 }).then(
      (output) => output,
      (error: unknown) => error,
    );
    await started;
    await stopProcess(server.process);
    const failure = await outcome;

    expect(failure).toMatchObject({ code: 'tool_transport_failed' });
    expect(Date.now() - before).toBeLessThan(20_000);
  }, 90_000);

  it('fails a call of server-everything over Streamable HTTP within seconds when the server is killed while it reports progress', async () => {
    const started = await startEverythingOverHttp('streamableHttp');
    children.push(started.process);
    const gateway = createMcpGateway(gatewayOptions([{ name: 'everything', type: 'http', url: `http://127.0.0.1:${started.port}/mcp`, headers: {} }], { reconnectMaxDelaySeconds: 2 }));
    gateways.push(gateway);
    await gateway.listTools();
    let reported!: () => void;
    const firstProgress = new Promise<void>((resolve) => (reported = resolve));

    const before = Date.now();
    const outcome = gateway.callTool('trigger-long-running-operation', { duration: 300, steps: 300 }, {
      signal: new AbortController().signal,
      timeoutMs: 45_000,
      onProgress: () => reported(),
    }).then((output) => output, (error: unknown) => error);
    await firstProgress;
    await stopProcess(started.process);
    const failure = await outcome;

    expect(failure).toMatchObject({ code: 'tool_transport_failed' });
    expect(Date.now() - before).toBeLessThan(20_000);
  }, 90_000);

  it('does not hang the next call when server-everything over legacy SSE restarted between two calls', async () => {
    const started = await startEverythingOverHttp('sse');
    children.push(started.process);
    const gateway = createMcpGateway(
      gatewayOptions([{ name: 'everything', type: 'sse', url: `http://127.0.0.1:${started.port}/sse`, headers: {} }], { reconnectMaxDelaySeconds: 2 }),
    );
    gateways.push(gateway);
    await gateway.listTools();
    expect(await call(gateway, 'echo', { message: 'before' })).toEqual({ ok: true, text: 'Echo: before' });

    await stopProcess(started.process);
    const restarted = await startEverythingOverHttp('sse', started.port);
    children.push(restarted.process);
    const before = Date.now();
    const outcome = await gateway.callTool('echo', { message: 'after' }, { signal: new AbortController().signal, timeoutMs: 45_000 }).then(
      (output) => output,
      (error: unknown) => error,
    );

    expect(outcome).toEqual({ ok: true, text: 'Echo: after' });
    expect(Date.now() - before).toBeLessThan(20_000);
  }, 90_000);
});
