/**
 * Budgets through `npm start` as a separate process, callers told apart as API Gateway would
 * (AUTH_MODE=cognito; LOCAL_CALLER_HEADER stands in for the authorizer), the model an
 * OpenAI-compatible server over HTTP that reports usage like OpenAI, and the server's clock moved
 * by the test (test/support/fake-clock.ts), never slept on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';

const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));
const FAKE_CLOCK = fileURLToPath(new URL('../support/fake-clock.ts', import.meta.url));
/** The server's day: it starts at 23:50 UTC, so the day ends during the test only when the test says so. */
const LAST_EVENING = Date.UTC(2030, 0, 1, 23, 50);
const NEXT_MORNING = Date.UTC(2030, 0, 2, 0, 0, 5);

// Usage as the scripted replies report it (OpenAI's shape): a call 188 + 16, an answer 192 + 171.
const CALL_TOKENS = 204;
const ANSWER_TOKENS = 363;

/**
 * An OpenAI-compatible endpoint answering from a queue of completion bodies, in order. A request
 * whose question contains "wait" is held until `release()`: a turn that runs as long as the test
 * needs, without a timer.
 */
async function startModel(replies: Array<Record<string, unknown>>) {
  const requests: unknown[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', async () => {
      const body = JSON.parse(text) as { messages: Array<{ role: string; content: string }> };
      requests.push(body);
      const question = body.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
      if (question.includes('wait')) {
        held();
        await released;
      }
      const reply = question.includes('wait') ? textReply('waited') : replies.shift();
      response.writeHead(reply ? 200 : 500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
      response.end(JSON.stringify(reply ?? { error: { message: 'no reply scripted', type: 'script_exhausted' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    holding,
    release,
    close: () => {
      release();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function post(url: string, caller: string | undefined, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(caller ? { 'x-caller': caller } : {}) }, body: JSON.stringify(body) });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as any };
}

describe('budgets through npm start', () => {
  let model: Awaited<ReturnType<typeof startModel>>;
  let server: LocalServer;
  let folder: string;
  const clockFile = () => join(folder, 'clock');
  /** Sets the server's clock to `at` (it runs on from there). */
  const setServerClock = (at: number) => writeFileSync(clockFile(), String(at - Date.now()));
  const ask = (caller: string | undefined, conversationId: string, message: string) => post(`${server.url}/conversations/${conversationId}/messages`, caller, { message });

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-e2e-budgets-'));
    model = await startModel([
      // A turn that tokensPerConversation stops after three calls.
      toolCallsReply([{ id: 'call_w1', name: 'getWeather', arguments: { city: '上海' } }]),
      toolCallsReply([{ id: 'call_w2', name: 'getWeather', arguments: { city: '北京' } }]),
      toolCallsReply([{ id: 'call_w3', name: 'getWeather', arguments: { city: '广州' } }]),
      // Two turns of one owner that spend its day, then one the next morning.
      textReply('第一个'),
      textReply('第二个'),
      textReply('新的一天'),
      // Another owner's turn while one runs; then the first owner's second turn.
      textReply('frank'),
      textReply('erin again'),
    ]);
    const config = join(folder, 'agent.yml');
    writeFileSync(config, [
      'limits:',
      '  tokensPerConversation: 500',
      '  tokensPerOwnerPerDay: 700',
      '  concurrentTurnsPerOwner: 1',
      'mcpServers:',
      '  demo:',
      '    command: node',
      `    args: [${JSON.stringify(DEMO_SERVER)}]`,
      '',
    ].join('\n'));
    setServerClock(LAST_EVENING);
    server = await startLocalServer({
      AGENT_CONFIG: config,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'sk-test',
      LLM_MODEL: 'gpt-4-turbo',
      LOCAL_DATA_DIR: join(folder, 'data'),
      AUTH_MODE: 'cognito',
      LOCAL_CALLER_HEADER: 'x-caller',
      NODE_OPTIONS: `--import=${FAKE_CLOCK}`,
      FAKE_CLOCK_FILE: clockFile(),
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('takes the caller from the header it stands for the authorizer with, and refuses a request without one', async () => {
    expect(await ask(undefined, 'nobody', 'hi')).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
  });

  it('stops a turn mid-way at tokensPerConversation, keeping every call answered, then refuses the next request with 429 before any model call', async () => {
    const stopped = await ask('alice', 'capped', '上海、北京、广州的天气？');

    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({
      stopReason: 'budget_exhausted',
      rounds: 3,
      budget: { limit: 'tokensPerConversation', allowedTokens: 500, usedTokens: 3 * CALL_TOKENS },
      usage: { promptTokens: 3 * 188, completionTokens: 3 * 16, conversation: { promptTokens: 3 * 188, completionTokens: 3 * 16 } },
    });
    expect(stopped.body.reply).toMatch(/limits\.tokensPerConversation.*start a new conversation/);
    expect(stopped.body.toolCalls.map((call: { name: string; ok: boolean }) => [call.name, call.ok])).toEqual([['getWeather', true], ['getWeather', true], ['getWeather', true]]);
    const stored = await fetch(`${server.url}/conversations/capped`, { headers: { 'x-caller': 'alice' } }).then((response) => response.json() as Promise<any>);
    expect(stored.turns[0].messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
    const requestsBefore = model.requests.length;

    const refused = await ask('alice', 'capped', '继续');

    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBeNull();
    expect(refused.body).toEqual({ error: { code: 'budget_exhausted', message: expect.stringMatching(/limits\.tokensPerConversation/), limit: 'tokensPerConversation', allowedTokens: 500, usedTokens: 612 } });
    expect(model.requests).toHaveLength(requestsBefore);
  });

  it('refuses an owner whose day is spent until midnight UTC, with Retry-After, and lets it in once the day rolled over', async () => {
    expect((await ask('dora', 'd-1', '一')).body).toMatchObject({ stopReason: 'completed', usage: { conversation: { promptTokens: 192, completionTokens: 171 } } });
    expect((await ask('dora', 'd-2', '二')).body).toMatchObject({ stopReason: 'completed' });
    const requestsBefore = model.requests.length;

    const refused = await ask('dora', 'd-3', '三');

    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'budget_exhausted', limit: 'tokensPerOwnerPerDay', allowedTokens: 700, usedTokens: 2 * ANSWER_TOKENS, resetsAt: '2030-01-02T00:00:00.000Z' });
    // The seconds until midnight on the server's clock (23:50 when it started, a little later now).
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(600);
    // A client asking for Server-Sent Events gets the same 429: the stream never started.
    const streamed = await fetch(`${server.url}/conversations/d-3/messages`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-caller': 'dora' }, body: JSON.stringify({ message: '三' }) });
    expect(streamed.status).toBe(429);
    expect(streamed.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await streamed.json()) as any).error.code).toBe('budget_exhausted');
    expect(model.requests).toHaveLength(requestsBefore);

    setServerClock(NEXT_MORNING);
    const nextDay = await ask('dora', 'd-3', '三');

    expect(nextDay).toMatchObject({ status: 200, body: { stopReason: 'completed', reply: '新的一天' } });
  });

  it('answers an owner over concurrentTurnsPerOwner with 429 while another owner’s turn runs, and frees the slot when the turn ends', async () => {
    let erinSettled = false;
    const erin = ask('erin', 'e-1', 'please wait').finally(() => (erinSettled = true));
    await model.holding;
    const requestsBefore = model.requests.length;

    const refused = await ask('erin', 'e-2', 'me too');
    const frank = await ask('frank', 'f-1', 'hello');

    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('5');
    expect(refused.body.error).toMatchObject({ code: 'too_many_turns', limit: 'concurrentTurnsPerOwner', allowedTurns: 1 });
    expect(frank).toMatchObject({ status: 200, body: { stopReason: 'completed', reply: 'frank' } });
    // Only frank's turn reached the model; erin's first turn was still running all along.
    expect(model.requests).toHaveLength(requestsBefore + 1);
    expect(erinSettled).toBe(false);

    model.release();
    expect(await erin).toMatchObject({ status: 200, body: { reply: 'waited' } });
    expect(await ask('erin', 'e-2', 'me too')).toMatchObject({ status: 200, body: { reply: 'erin again' } });
  });
});
