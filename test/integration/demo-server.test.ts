/** The bundled demo MCP server, started as `node lib/demo/server.ts`, through the gateway. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { DEMO_ENTRY, gatewayOptions } from '../support/mcp-servers.ts';
import { originalTools } from '../support/original-tools.ts';

describe('the demo MCP server', () => {
  let gateway: ToolGateway;
  const call = (name: string, args: Record<string, unknown>) =>
    gateway.callTool(name, args, { signal: new AbortController().signal, timeoutMs: 20_000 });

  beforeAll(() => {
    gateway = createMcpGateway(gatewayOptions([{ name: 'demo', type: 'stdio', command: 'node', args: [DEMO_ENTRY], env: {} }]));
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('lists the four tools of the original request with exactly its names, descriptions and schemas', async () => {
    const listed = await gateway.listTools();
    expect(listed.map(({ name, description, parameters }) => ({ name, description, parameters }))).toStrictEqual(originalTools);
    expect(listed.every((tool) => tool.server === 'demo' && tool.originalName === tool.name)).toBe(true);
  });

  it('says truthfully which tools only read and which destroy (MCP tool annotations)', async () => {
    const hints = Object.fromEntries((await gateway.listTools()).map((tool) => [tool.name, tool.annotations]));
    expect(hints).toEqual({
      foo: undefined,
      getWeather: { readOnlyHint: true },
      getNews: { readOnlyHint: true },
      batchCancelOrdersByOrderNo: { readOnlyHint: false, destructiveHint: true },
    });
  });

  it('names itself mcp-agent-demo', async () => {
    const client = new Client({ name: 'demo-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [DEMO_ENTRY], stderr: 'ignore' }));
    try {
      expect(client.getServerVersion()?.name).toBe('mcp-agent-demo');
    } finally {
      await client.close();
    }
  });

  it('echoes the arguments of foo', async () => {
    const output = await call('foo', { categorys: [1, 2], name: 'test', count: 3 });

    expect(output.ok).toBe(true);
    expect(JSON.parse(output.text)).toEqual({ categorys: [1, 2], name: 'test', count: 3 });
  });

  it('gives the same weather for the same city every time', async () => {
    const first = await call('getWeather', { city: '上海' });
    const second = await call('getWeather', { city: '上海' });

    expect(first.ok).toBe(true);
    expect(second.text).toBe(first.text);
    expect(JSON.parse(first.text)).toEqual({
      city: '上海',
      condition: expect.any(String),
      temperatureC: expect.any(Number),
      humidity: expect.any(Number),
    });
  });

  it('gives fixed headlines per news category', async () => {
    const output = await call('getNews', { categorys: [1, 3] });
    const again = await call('getNews', { categorys: [1, 3] });

    const news = JSON.parse(output.text).news as { categoryId: number; headlines: string[] }[];
    expect(news.map((item) => item.categoryId)).toEqual([1, 3]);
    expect(news.every((item) => item.headlines.length > 0)).toBe(true);
    expect(again.text).toBe(output.text);
  });

  it('fails an order whose number ends in an even digit as already cancelled, as in the original request', async () => {
    const output = await call('batchCancelOrdersByOrderNo', { orderNos: ['ORD20250514118566', 'ORD20250514118567'] });

    expect(output).toEqual({
      ok: true,
      text: JSON.stringify({
        success: ['ORD20250514118567'],
        fail: [{ orderNo: 'ORD20250514118566', reason: '订单状态已经为取消状态' }],
      }),
    });
  });

  it.each([
    ['getWeather', {}, '"city" is required'],
    ['getWeather', { city: 42 }, '"city" must be a string'],
    ['batchCancelOrdersByOrderNo', { orderNo: 'ORD20250514118566' }, '"orderNos" is required'],
    ['getNews', { categorys: ['科技'] }, '"categorys" must be an array of integers'],
    ['foo', { categorys: [1], name: 'x', count: 1.5 }, '"count" must be an integer'],
  ])('answers %s with bad input %j as an error naming the field', async (name, args, expected) => {
    const output = await call(name, args);

    expect(output.ok).toBe(false);
    expect(output.text).toContain(expected);
  });
});
