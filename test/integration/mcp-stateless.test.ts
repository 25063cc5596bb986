/**
 * Protocol revision 2026-07-28 (stateless), negotiated per server, against servers built with the
 * MCP SDK v2 server package (test/fixtures/stateless-server.ts): one that speaks only 2026-07-28
 * and one that also serves 2025 clients. Servers on 2025-11-25 (server-everything over Streamable
 * HTTP, stateful) keep their era: see mcp-everything.test.ts and mcp-healing.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { McpGatewayOptions, McpServerSpec } from '../../lib/adapters/mcp/types.ts';
import type { ElicitationRequest, ToolGateway } from '../../lib/core/ports/tools.ts';
import { gatewayOptions, PROJECT_ROOT, startEverythingOverHttp, startFixtureOverHttp, stopProcess } from '../support/mcp-servers.ts';

const STATELESS_SERVER = `${PROJECT_ROOT}test/fixtures/stateless-server.ts`;

async function startStatelessServer(legacy: 'reject' | 'stateless'): Promise<{ url: string; child: ChildProcess }> {
  const { url, process: child } = await startFixtureOverHttp(STATELESS_SERVER, { LEGACY: legacy });
  return { url, child };
}

describe.each([
  ['only 2026-07-28', 'reject'],
  ['2026-07-28 and 2025 alike', 'stateless'],
] as const)('the MCP gateway with a server that speaks %s', (_name, legacy) => {
  let server: { url: string; child: ChildProcess };
  const gateways: ToolGateway[] = [];
  const asked: ElicitationRequest[] = [];
  const start = (features: Partial<McpServerSpec> = {}, extra: Partial<McpGatewayOptions> = {}) => {
    const gateway = createMcpGateway({ ...gatewayOptions([{ name: 'modern', type: 'http', url: server.url, headers: {}, ...features } as McpServerSpec]), ...extra });
    gateways.push(gateway);
    return gateway;
  };
  const call = (gateway: ToolGateway, name: string, args: Record<string, unknown> = {}) =>
    gateway.callTool(name, args, { signal: new AbortController().signal, timeoutMs: 20_000 });

  beforeAll(async () => {
    server = await startStatelessServer(legacy);
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await stopProcess(server?.child);
  });

  it('negotiates 2026-07-28, lists and calls its tools', async () => {
    const gateway = start();

    const tools = await gateway.listTools();

    expect(tools.map((tool) => tool.name)).toEqual(['add', 'confirm', 'where']);
    expect(await gateway.status()).toMatchObject([{ name: 'modern', status: 'connected', protocolVersion: '2026-07-28', toolCount: 3 }]);
    expect(await call(gateway, 'add', { a: 2, b: 3 })).toEqual({ ok: true, text: '5' });
  });

  it('answers an input-required elicitation through onElicitation and calls again', async () => {
    const gateway = start({ elicitation: 'ask' }, {
      onElicitation: async (request) => {
        asked.push(request);
        return { action: 'accept', content: { ok: true } };
      },
    });

    const output = await call(gateway, 'confirm');

    expect(output).toEqual({ ok: true, text: 'confirmed: true' });
    expect(asked.at(-1)).toMatchObject({ message: 'Proceed?', requestedSchema: { properties: { ok: { type: 'boolean' } } } });
  });

  it('answers an input-required roots request with the configured roots', async () => {
    const gateway = start({ roots: ['file:///srv/shared'] });

    expect(await call(gateway, 'where')).toEqual({ ok: true, text: 'file:///srv/shared' });
  });

  it('fails only the call when the server asks for input this client does not offer', async () => {
    const gateway = start();

    const output = await call(gateway, 'where');

    expect(output).toMatchObject({ ok: false, text: expect.stringContaining('roots') });
    expect(await call(gateway, 'add', { a: 1, b: 1 })).toEqual({ ok: true, text: '2' });
  });
});

describe('the MCP gateway with server-everything over Streamable HTTP (2025-11-25, stateful)', () => {
  let child: ChildProcess | undefined;
  let gateway: ToolGateway | undefined;

  afterAll(async () => {
    await gateway?.close();
    await stopProcess(child);
  });

  it('keeps the stateful era after server/discover is refused', async () => {
    const started = await startEverythingOverHttp('streamableHttp');
    child = started.process;
    gateway = createMcpGateway(gatewayOptions([{ name: 'everything', type: 'http', url: `http://127.0.0.1:${started.port}/mcp`, headers: {} }]));

    await gateway.listTools();

    expect(await gateway.status()).toMatchObject([{ status: 'connected', protocolVersion: '2025-11-25' }]);
    expect(await gateway.callTool('echo', { message: 'x' }, { signal: new AbortController().signal, timeoutMs: 20_000 })).toEqual({ ok: true, text: 'Echo: x' });
  }, 60_000);
});
