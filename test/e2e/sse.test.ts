import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { eventNames, postForEvents } from '../support/sse-client.ts';
import { completionChunks, startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { historyViolations } from '../../lib/core/history.ts';

const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));
/** Long enough for the test to look at the conversation while the model is still "thinking". */
const SLOW_REPLY_MS = 2_500;
const BROKEN_ANSWER = '广州今天有雷阵雨，最高 31°C。';

describe('Server-Sent Events from the local server (npm start)', () => {
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-e2e-sse-'));
    const agentConfig = join(dataDir, 'agent.yml');
    writeFileSync(agentConfig, [
      // Retries on, to show that a stream is retried only before its first delta reached the client.
      'model: { maxRetries: 2 }',
      'http: { heartbeatSeconds: 0.2 }',
      'mcpServers:',
      `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}] }`,
    ].join('\n'));
    model = await startScriptedOpenAIServer([
      // The streamed turn: one tool round, then an answer that takes its time.
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      { status: 200, body: textReply('上海今天晴。'), delayMs: SLOW_REPLY_MS },
      // The turn whose client hangs up.
      toolCallsReply([{ id: 'call_weather2', name: 'getWeather', arguments: { city: '北京' } }]),
      { status: 200, body: textReply('北京今天多云。'), delayMs: 1_000 },
      // The turn whose model breaks off after its first deltas reached the client.
      toolCallsReply([{ id: 'call_weather3', name: 'getWeather', arguments: { city: '广州' } }]),
      { sse: completionChunks(textReply(BROKEN_ANSWER)).slice(0, 3), ending: 'reset' },
      // The turn whose model breaks off before any delta, then answers when retried.
      { sse: completionChunks(textReply('never seen')).slice(0, 1), ending: 'reset' },
      textReply('深圳今天晴。'),
    ]);
    server = await startLocalServer({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LOCAL_DATA_DIR: join(dataDir, 'db'), AGENT_CONFIG: agentConfig });
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('streams round, tool call and tool result events while the turn runs, then the turn result', async () => {
    // Prepare: looking the conversation up as soon as the tool result arrives shows whether it came
    // before the turn was stored (a buffered response would only arrive after).
    let lookupDuringTurn: Promise<number> | undefined;

    // Act
    const exchange = await postForEvents(`${server.url}/conversations/sse-e2e/messages`, {
      body: { message: '上海天气怎么样？' },
      onEvent: (event) => {
        if (event.event === 'tool-result') lookupDuringTurn = fetch(`${server.url}/conversations/sse-e2e`).then((response) => response.status);
      },
    });

    // Assess
    expect(exchange.status).toBe(200);
    expect(exchange.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(exchange.headers.get('cache-control')).toBe('no-cache');
    // Tokens as they are generated: text-delta events before turn-end, adding up to the reply.
    const names = eventNames(exchange);
    const deltas = exchange.events.filter((event) => event.event === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(names.lastIndexOf('text-delta')).toBeLessThan(names.indexOf('turn-end'));
    expect(deltas.map((event) => (event.data as { round: number; text: string })).every((delta) => delta.round === 2)).toBe(true);
    expect(deltas.map((event) => (event.data as { text: string }).text).join('')).toBe('上海今天晴。');
    expect(names.filter((name) => name !== 'text-delta')).toEqual(['round-start', 'tool-call', 'tool-result', 'round-start', 'turn-end']);
    expect(exchange.events[1]!.data).toEqual({ round: 1, id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } });
    expect(exchange.events[2]!.data).toEqual({ round: 1, id: 'call_weather', name: 'getWeather', ok: true, durationMs: expect.any(Number), content: expect.stringContaining('上海') });
    expect(await lookupDuringTurn).toBe(404);
    const turnEndEvent = exchange.events.find((event) => event.event === 'turn-end')!;
    const turnEnd = turnEndEvent.data;
    expect(turnEnd).toMatchObject({ conversationId: 'sse-e2e', turn: 1, reply: '上海今天晴。', stopReason: 'completed', rounds: 2 });
    // The slow answer was bridged by heartbeats, after the tool result and before the turn's end.
    const heartbeats = exchange.received.filter((item) => item.kind === 'comment');
    expect(heartbeats.length).toBeGreaterThan(0);
    expect(heartbeats.every((item) => item.text === 'heartbeat')).toBe(true);
    const afterToolResult = exchange.received.slice(exchange.received.indexOf(exchange.events[2]!), exchange.received.indexOf(turnEndEvent));
    expect(afterToolResult.some((item) => item.kind === 'comment')).toBe(true);
    // And the stored turn is the one the stream announced.
    const stored = (await (await fetch(`${server.url}/conversations/sse-e2e`)).json()) as { turns: Array<{ turn: number; stopReason: string }> };
    expect(stored.turns).toEqual([expect.objectContaining({ turn: 1, stopReason: 'completed' })]);
  });

  it('answers bad input with the JSON error, not a stream', async () => {
    const exchange = await postForEvents(`${server.url}/conversations`, { body: { question: 'no message field' } });
    expect(exchange.status).toBe(400);
    expect(exchange.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(exchange.json).toMatchObject({ error: { code: 'unknown_field' } });
  });

  it('finishes and stores the turn of a client that hung up mid-turn, and keeps serving', async () => {
    // Act: hang up as soon as the first event arrives.
    const hangUp = new AbortController();
    const exchange = await postForEvents(`${server.url}/conversations/sse-gone/messages`, { body: { message: '北京天气怎么样？' }, signal: hangUp.signal, onEvent: () => hangUp.abort() });
    expect(eventNames(exchange)[0]).toBe('round-start');
    expect(eventNames(exchange)).not.toContain('turn-end');

    // Assess: the turn ends on the server all the same.
    const stored = await waitForStoredTurn(`${server.url}/conversations/sse-gone`);
    expect(stored).toMatchObject({ turns: [{ turn: 1, stopReason: 'completed' }] });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('ends with turn-end, stopReason error, when the model breaks off after its first deltas, never retried, the history intact', async () => {
    const requestsBefore = model.requests.length;

    const exchange = await postForEvents(`${server.url}/conversations/sse-broken/messages`, { body: { message: '广州天气怎么样？' } });

    // The client saw the text begin, then the failure: the answer it saw is not the stored one.
    const names = eventNames(exchange);
    expect(names.filter((name) => name !== 'text-delta')).toEqual(['round-start', 'tool-call', 'tool-result', 'round-start', 'turn-end']);
    const seen = exchange.events.filter((event) => event.event === 'text-delta').map((event) => (event.data as { text: string }).text).join('');
    expect(seen.length).toBeGreaterThan(0);
    expect(BROKEN_ANSWER.startsWith(seen) && seen !== BROKEN_ANSWER).toBe(true);
    expect(exchange.events.at(-1)!.data).toMatchObject({ stopReason: 'error', error: { code: 'model_unavailable' }, toolCalls: [{ id: 'call_weather3', ok: true }] });
    // Once a delta was handed over, the call was not retried: one request per round.
    expect(model.requests.length - requestsBefore).toBe(2);
    // The stored turn keeps the tool round and no half answer; the history stays valid.
    const stored = (await (await fetch(`${server.url}/conversations/sse-broken`)).json()) as { turns: Array<{ stopReason: string; messages: Array<{ role: string; content?: string | null }> }> };
    expect(stored.turns).toHaveLength(1);
    expect(stored.turns[0]!.stopReason).toBe('error');
    expect(stored.turns[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(historyViolations(stored.turns[0]!.messages as never)).toEqual([]);
  });

  it('retries a stream that broke off before any delta, and the client sees only the answer', async () => {
    const requestsBefore = model.requests.length;

    const exchange = await postForEvents(`${server.url}/conversations/sse-retried/messages`, { body: { message: '深圳天气怎么样？' } });

    expect(eventNames(exchange).filter((name) => name !== 'text-delta')).toEqual(['round-start', 'turn-end']);
    expect(exchange.events.filter((event) => event.event === 'text-delta').map((event) => (event.data as { text: string }).text).join('')).toBe('深圳今天晴。');
    expect(exchange.events.at(-1)!.data).toMatchObject({ reply: '深圳今天晴。', stopReason: 'completed', rounds: 1 });
    expect(model.requests.length - requestsBefore).toBe(2);
  });
});

async function waitForStoredTurn(url: string, timeoutMs = 20_000): Promise<unknown> {
  const started = Date.now();
  for (;;) {
    const response = await fetch(url);
    if (response.status === 200) return response.json();
    if (Date.now() - started > timeoutMs) throw new Error(`no stored turn at ${url} after ${timeoutMs} ms (last status ${response.status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
