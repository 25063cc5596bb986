/**
 * The gateway against the MCP project's own reference server, over each transport it speaks.
 * `gzip-file-as-resource` is never called: it fetches a URL from the internet.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { McpServerSpec } from '../../lib/adapters/mcp/types.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { EVERYTHING_ENTRY, gatewayOptions, startEverythingOverHttp, stopProcess } from '../support/mcp-servers.ts';

type Setup = { spec: McpServerSpec; transport: 'stdio' | 'http' | 'sse'; child?: ChildProcess };

const SETUPS: [string, () => Promise<Setup>][] = [
  ['stdio', async () => ({
    spec: { name: 'everything', type: 'stdio', command: 'node', args: [EVERYTHING_ENTRY, 'stdio'], env: {} },
    transport: 'stdio',
  })],
  ['Streamable HTTP', async () => {
    const { port, process: child } = await startEverythingOverHttp('streamableHttp');
    const spec: McpServerSpec = { name: 'everything', type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} };
    return { spec, transport: 'http', child };
  }],
  ['legacy SSE', async () => {
    const { port, process: child } = await startEverythingOverHttp('sse');
    const spec: McpServerSpec = { name: 'everything', type: 'sse', url: `http://127.0.0.1:${port}/sse`, headers: {} };
    return { spec, transport: 'sse', child };
  }],
];

describe.each(SETUPS)('the MCP gateway with server-everything over %s', (_transport, setUp) => {
  let setup: Setup;
  let gateway: ToolGateway;
  const call = (name: string, args: Record<string, unknown> = {}, timeoutMs = 20_000) =>
    gateway.callTool(name, args, { signal: new AbortController().signal, timeoutMs });

  beforeAll(async () => {
    setup = await setUp();
    gateway = createMcpGateway(gatewayOptions([setup.spec]));
  });

  afterAll(async () => {
    await gateway?.close();
    await stopProcess(setup?.child);
  });

  it('lists at least the 13 tools of a plain client, echo among them, and reports the transport', async () => {
    const tools = await gateway.listTools();

    expect(tools.length).toBeGreaterThanOrEqual(13);
    expect(tools.find((tool) => tool.name === 'echo')).toMatchObject({
      description: expect.any(String),
      parameters: { type: 'object', properties: { message: expect.any(Object) } },
    });
    expect(await gateway.status()).toEqual([
      { name: 'everything', transport: setup.transport, status: 'connected', toolCount: tools.length, protocolVersion: '2025-11-25' },
    ]);
  });

  it('calls echo and get-sum', async () => {
    expect(await call('echo', { message: 'hello 世界' })).toEqual({ ok: true, text: 'Echo: hello 世界' });
    expect(await call('get-sum', { a: 2, b: 3 })).toEqual({ ok: true, text: 'The sum of 2 and 3 is 5.' });
  });

  it('renders the image of get-tiny-image as a placeholder without its base64', async () => {
    const output = await call('get-tiny-image');

    expect(output.ok).toBe(true);
    expect(output.text).toMatch(/\[image: image\/png, \d+ bytes base64\]/);
    expect(output.text).not.toMatch(/iVBOR|[A-Za-z0-9+/]{200}/);
  });

  it('gives the structured content of get-structured-content as JSON', async () => {
    const output = await call('get-structured-content', { location: 'New York' });

    expect(output.ok).toBe(true);
    expect(JSON.parse(output.text)).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
  });

  it('gives the text of the resource that get-resource-reference embeds', async () => {
    const output = await call('get-resource-reference', { resourceType: 'Text', resourceId: 1 });

    expect(output.ok).toBe(true);
    expect(output.text).toContain('Resource 1: This is a plaintext resource');
  });

  it('shows the resource links of get-resource-links', async () => {
    const output = await call('get-resource-links', { count: 2 });

    expect(output.text).toMatch(/\[resource link: .+ <demo:\/\/resource\/.+>\]/);
  });

  it('returns ok: false when the server rejects the arguments', async () => {
    const output = await call('get-sum', { a: 'not a number', b: 1 });

    expect(output.ok).toBe(false);
    expect(output.text).toContain('get-sum');
  });

  it('rejects a call that takes longer than its timeout', async () => {
    await expect(call('trigger-long-running-operation', { duration: 5, steps: 5 }, 300)).rejects.toMatchObject({
      code: 'tool_timeout',
    });
  });

  it('rejects a call whose signal aborts', async () => {
    const controller = new AbortController();
    const pending = gateway.callTool('trigger-long-running-operation', { duration: 5, steps: 5 }, {
      signal: controller.signal,
      timeoutMs: 20_000,
    });
    setTimeout(() => controller.abort(), 100);

    await expect(pending).rejects.toMatchObject({ code: 'tool_aborted' });
  });
});

describe.each([
  ['Streamable HTTP', 'streamableHttp', '/mcp', 'http'],
  ['legacy SSE', 'sse', '/sse', 'sse'],
] as const)('the MCP gateway with type auto against a %s server', (_name, mode, path, expected) => {
  let child: ChildProcess | undefined;
  let gateway: ToolGateway | undefined;

  afterAll(async () => {
    await gateway?.close();
    await stopProcess(child);
  });

  it(`connects over ${expected}`, async () => {
    const started = await startEverythingOverHttp(mode);
    child = started.process;
    gateway = createMcpGateway(
      gatewayOptions([{ name: 'everything', type: 'auto', url: `http://127.0.0.1:${started.port}${path}`, headers: {} }]),
    );

    const tools = await gateway.listTools();

    expect(tools.length).toBeGreaterThanOrEqual(13);
    expect((await gateway.status())[0]).toMatchObject({ transport: expected, status: 'connected' });
  });
});
