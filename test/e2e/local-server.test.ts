import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weatherFor } from '../../lib/demo/tools.ts';
import { originalExchange } from '../support/original-tools.ts';
import { startLocalServer, waitForOutput, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const exchange = originalExchange;
const systemPrompt = exchange.request.messages[0].content as string;

async function post(url: string, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // The assertions check the shape; `any` keeps them readable.
  return { status: response.status, body: (await response.json()) as any };
}

describe('the local server, end to end', () => {
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-e2e-'));
    model = await startScriptedOpenAIServer([
      // Question 1: the original request's exchange, verbatim.
      exchange.firstResponse,
      exchange.secondResponse,
      // Question 2, in the same conversation.
      toolCallsReply([{ id: 'call_cancel2', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118566', 'ORD20250514118567'] } }]),
      textReply('订单 ORD20250514118567 已取消；ORD20250514118566 已经是取消状态。'),
    ]);
    server = await startLocalServer({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo', LOCAL_DATA_DIR: dataDir });
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let conversationId: string;

  it('answers a question after the model used MCP tools, with exactly the original request on the wire', async () => {
    const response = await post(`${server.url}/conversations`, { message: '你有哪些function可以调用' });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ turn: 1, stopReason: 'completed', rounds: 2, reply: exchange.secondResponse.choices[0].message.content, usage: { promptTokens: 188 + 192, completionTokens: 16 + 171 } });
    expect(response.body.toolCalls).toEqual([
      { id: 'call_7UjkvIZrlmpFRa36bSDdAbza', name: 'batchCancelOrdersByOrderNo', arguments: { orderNo: 'ORD20250514118566' }, ok: false, durationMs: expect.any(Number) },
      { id: 'call_U7223vIrlmpFRa36bSDdAbza', name: 'getWeather', arguments: { city: '上海' }, ok: true, durationMs: expect.any(Number) },
    ]);
    conversationId = response.body.conversationId;

    // Round 1: system + user + the four tools of the demo MCP server, as in the original request.
    expect(model.requests[0]!.body).toEqual({ ...exchange.request, messages: [exchange.request.messages[0], { role: 'user', content: '你有哪些function可以调用' }] });

    // Round 2: the assistant message with both calls, then one tool message per call, in order.
    const round2 = (model.requests[1]!.body as { messages: Array<Record<string, unknown>> }).messages;
    expect(round2.slice(0, 3)).toEqual([
      { role: 'system', content: systemPrompt },
      { role: 'user', content: '你有哪些function可以调用' },
      { role: 'assistant', content: null, tool_calls: exchange.firstResponse.choices[0].message.tool_calls },
    ]);
    expect(round2).toHaveLength(5);
    expect(round2[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_7UjkvIZrlmpFRa36bSDdAbza', name: 'batchCancelOrdersByOrderNo' });
    // The original slip ({orderNo} for {orderNos}) comes back as an error the model can act on.
    expect(round2[3]!.content).toMatch(/missing required field "orderNos"; unexpected field "orderNo"/);
    expect(round2[4]).toMatchObject({ role: 'tool', tool_call_id: 'call_U7223vIrlmpFRa36bSDdAbza', name: 'getWeather' });
    expect(JSON.parse(round2[4]!.content as string)).toMatchObject({ city: '上海' });
  });

  it('carries the first turn as history into the second question of the conversation', async () => {
    const response = await post(`${server.url}/conversations/${conversationId}/messages`, { message: '取消订单 ORD20250514118566 和 ORD20250514118567' });

    expect(response).toMatchObject({ status: 200, body: { conversationId, turn: 2, stopReason: 'completed', rounds: 2 } });
    const round1 = (model.requests[2]!.body as { messages: Array<Record<string, unknown>> }).messages;
    expect(round1.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'user']);
    expect(round1[5]).toEqual({ role: 'assistant', content: exchange.secondResponse.choices[0].message.content });
    expect(round1[6]).toEqual({ role: 'user', content: '取消订单 ORD20250514118566 和 ORD20250514118567' });
    // The demo server answered the cancellation: one already cancelled (even last digit), one cancelled now.
    const toolResult = (model.requests[3]!.body as { messages: Array<Record<string, unknown>> }).messages.at(-1)!;
    expect(JSON.parse(toolResult.content as string)).toEqual({ success: ['ORD20250514118567'], fail: [{ orderNo: 'ORD20250514118566', reason: '订单状态已经为取消状态' }] });
  });

  it('keeps the conversation in the embedded DynamoDB across a restart', async () => {
    await server.stop();
    server = await startLocalServer({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LOCAL_DATA_DIR: dataDir });
    const response = await fetch(`${server.url}/conversations/${conversationId}`);
    const body = (await response.json()) as { turns: Array<{ turn: number; messages: unknown[] }> };
    expect(response.status).toBe(200);
    expect(body.turns.map((turn) => turn.turn)).toEqual([1, 2]);
    expect(body.turns[0]!.messages).toHaveLength(5);
  });

  it('reports the demo MCP server and its four tools in /health', async () => {
    const response = await fetch(`${server.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', tools: 4, mcpServers: [{ name: 'demo', transport: 'stdio', status: 'connected', toolCount: 4 }] });
  });
});

describe('the local server without a model', () => {
  it('starts with the offline stand-in, says how to configure a real model, and answers the weather through the demo MCP server', async () => {
    // Prepare: no model settings at all (startLocalServer passes only PATH, HOME and what is named).
    const dataDir = temporaryFolder('agent-e2e-nomodel-');
    const server = await startLocalServer({ LOCAL_DATA_DIR: dataDir });
    try {
      await waitForOutput(server, /MCP server "demo" \(stdio\): connected, 4 tools/);
      expect(server.output()).toMatch(/Model: the offline demo model \(no model is configured\)/);
      expect(server.output()).toMatch(/OPENAI_API_KEY=sk-\.\.\. LLM_MODEL=gpt-4o-mini npm start/);
      expect(server.output()).toMatch(/OPENAI_BASE_URL=http:\/\/localhost:11434\/v1 LLM_MODEL=qwen2\.5 npm start/);

      // Act
      const response = await post(`${server.url}/conversations`, { message: '上海天气怎么样？' });

      // Assess: getWeather ran on the real demo server, and the answer is worded from its result.
      const weather = weatherFor('上海');
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ turn: 1, stopReason: 'completed', rounds: 2, usage: { promptTokens: 0, completionTokens: 0 } });
      expect(response.body.toolCalls).toEqual([{ id: expect.any(String), name: 'getWeather', arguments: { city: '上海' }, ok: true, durationMs: expect.any(Number) }]);
      expect(response.body.reply).toBe(`[offline demo model] 上海：${weather.condition}，${weather.temperatureC}°C，湿度 ${weather.humidity}%。`);
      const stored = (await (await fetch(`${server.url}/conversations/${response.body.conversationId}`)).json()) as any;
      const toolMessage = stored.turns[0].messages.find((message: { role: string }) => message.role === 'tool');
      expect(JSON.parse(toolMessage.content)).toEqual(weather);

      const health = (await (await fetch(`${server.url}/health`)).json()) as any;
      expect(health).toMatchObject({ status: 'ok', model: { name: 'demo', configured: true, offlineStandIn: true } });
    } finally {
      await server.stop();
    }
  });
});
