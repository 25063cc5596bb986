import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { McpServerSpec } from '../../lib/adapters/mcp/types.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { BIG_RESULT_BYTES } from '../fixtures/large-result-mcp.ts';
import { startLargeResultHttpServer, type LargeResultHttpServer } from '../fixtures/large-result-http-server.ts';
import { startSdkLargeResultServer } from '../fixtures/sdk-large-result-server.ts';
import { gatewayOptions, PROJECT_ROOT } from '../support/mcp-servers.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const STDIO_ENTRY = `${PROJECT_ROOT}test/fixtures/large-result-stdio-server.ts`;
const LIMIT = 1_048_576;
const tooLarge = (name: string) =>
  `the result of "${name}" was larger than ${LIMIT} bytes (tools.maxResultBytes) and was cut off while it arrived; ` +
  'ask for less (a narrower query, fewer items, a smaller page or range)';

let http: LargeResultHttpServer;
let sdk: LargeResultHttpServer;
const gateways: ToolGateway[] = [];

beforeAll(async () => {
  [http, sdk] = await Promise.all([startLargeResultHttpServer(), startSdkLargeResultServer()]);
});
afterAll(() => Promise.all([http.close(), sdk.close()]));
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

const transports: [string, () => McpServerSpec][] = [
  ['stdio', () => ({ name: 'large', type: 'stdio', command: 'node', args: [STDIO_ENTRY], env: {} })],
  ['Streamable HTTP, answered as events', () => ({ name: 'large', type: 'http', url: `${http.baseUrl}/mcp`, headers: {} })],
  ['Streamable HTTP, answered as JSON', () => ({ name: 'large', type: 'http', url: `${http.baseUrl}/mcp?responses=json`, headers: {} })],
  ['legacy SSE', () => ({ name: 'large', type: 'sse', url: `${http.baseUrl}/sse`, headers: {} })],
];

function startGateway(spec: McpServerSpec, maxResultBytes = LIMIT, logger = recordingLogger()): ToolGateway {
  const gateway = createMcpGateway(gatewayOptions([spec], { maxResultBytes }, logger));
  gateways.push(gateway);
  return gateway;
}

function call(gateway: ToolGateway, name: string) {
  return gateway.callTool(name, {}, { signal: new AbortController().signal, timeoutMs: 20_000 });
}

describe('tool results over tools.maxResultBytes', () => {
  it.each(transports)('fail only their own call, and the session goes on, over %s', async (_transport, spec) => {
    // Prepare
    const logger = recordingLogger();
    const gateway = startGateway(spec(), LIMIT, logger);
    const before = await call(gateway, 'small');

    // Act
    const big = await call(gateway, 'big');
    const after = await call(gateway, 'small');

    // Assess: the same connection answers (the small result names its process or session).
    expect(big).toEqual({ ok: false, text: tooLarge('big') });
    expect(before.ok).toBe(true);
    expect(after).toEqual(before);
    expect(await gateway.status()).toMatchObject([{ name: 'large', status: 'connected', toolCount: 3 }]);
    expect(logger.entries).toContainEqual({
      level: 'warn',
      message: 'mcp message over tools.maxResultBytes cut off',
      fields: expect.objectContaining({ server: 'large', maxResultBytes: LIMIT, answeredRequest: expect.anything() }),
    });
  }, 60_000);

  // The fixture writes 2 MB of this result and then waits for the client's next message before
  // writing the other 18 MB: had the client held the message until its end, this call could not
  // end before that next message, which the test only sends after it ended.
  it.each(transports)('are cut off while they arrive, before the server has written them, over %s', async (_transport, spec) => {
    const gateway = startGateway(spec());
    const before = await call(gateway, 'small');

    const big = await call(gateway, 'big-id-first');
    const after = await call(gateway, 'small');

    expect(big).toEqual({ ok: false, text: tooLarge('big-id-first') });
    expect(after).toEqual(before);
    expect(await gateway.status()).toMatchObject([{ status: 'connected' }]);
  }, 60_000);

  it.each(transports)('pass whole within a larger limit, over %s', async (_transport, spec) => {
    const gateway = startGateway(spec(), 2 * BIG_RESULT_BYTES);

    const big = await call(gateway, 'big');

    expect(big.ok).toBe(true);
    expect(big.text).toHaveLength(BIG_RESULT_BYTES);
  }, 60_000);

  it.each<[string, () => McpServerSpec]>([
    ['Streamable HTTP', () => ({ name: 'sdk', type: 'http', url: `${sdk.baseUrl}/mcp`, headers: {} })],
    ['legacy SSE', () => ({ name: 'sdk', type: 'sse', url: `${sdk.baseUrl}/sse`, headers: {} })],
  ])("fail only their own call on the MCP SDK's own server, over %s", async (_transport, spec) => {
    const gateway = startGateway(spec());

    const first = await call(gateway, 'small');
    const big = await call(gateway, 'big');
    const second = await call(gateway, 'small');

    expect([first, big, second]).toEqual([
      { ok: true, text: 'small call 1' },
      { ok: false, text: tooLarge('big') },
      { ok: true, text: 'small call 2' },
    ]);
    expect(await gateway.status()).toMatchObject([{ name: 'sdk', status: 'connected' }]);
  }, 60_000);
});
