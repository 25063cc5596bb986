import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModelError } from '../../lib/core/errors.ts';
import { createHttpHandler, createStreamingHttpHandler } from '../../lib/front-doors/handlers.ts';
import { configuredFrontDoors } from '../../lib/front-doors/configured.ts';
import { withIdleLimit } from '../../lib/http/dispatch.ts';
import { isEventStreamResponse } from '../../lib/http/event-stream.ts';
import { requestTag } from '../../lib/front-doors/native/stream-ids.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { eventNames, readEventStream } from '../support/sse-client.ts';

const HEARTBEAT_MS = 20;

function streaming(script: ScriptedStep[] | null) {
  const fixture = agentFixture(script);
  const logger = recordingLogger();
  const warnings = () => logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message);
  const options = { agent: fixture.agent, logger, maxBodyBytes: fixture.config.http.maxBodyBytes, heartbeatMs: HEARTBEAT_MS };
  const handle = createStreamingHttpHandler(options);
  const buffered = createHttpHandler(options);
  const request = (method: string, path: string, body?: unknown, accept = 'text/event-stream'): HttpRequest => ({
    method,
    path,
    headers: { 'content-type': 'application/json', accept },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { ...fixture, handle, buffered, request, warnings };
}

/** A model step that answers only when the test says so. */
function heldReply() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const step: ScriptedStep = async () => {
    await released;
    return textReply('held');
  };
  return { step, release };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the streaming HTTP contract', () => {
  it.each([
    ['a question without Accept: text/event-stream', 'POST', '/conversations/plain/messages', { message: 'hi' }, 'application/json'],
    ['a read, even from an event-stream client', 'GET', '/conversations/none', undefined, 'text/event-stream'],
    ['health, even from an event-stream client', 'GET', '/health', undefined, 'text/event-stream'],
    ['a wrong method, even from an event-stream client', 'PUT', '/conversations', { message: 'hi' }, 'text/event-stream'],
    ['an unknown route, even from an event-stream client', 'POST', '/nope', { message: 'hi' }, 'text/event-stream'],
    ['a generic */* client', 'POST', '/conversations/star/messages', { message: 'hi' }, '*/*'],
  ])('answers %s exactly as the buffered contract does', async (_, method, path, body, accept) => {
    const streamed = streaming([textReply('same')]);
    const buffered = streaming([textReply('same')]);

    const response = await streamed.handle(streamed.request(method, path, body, accept));
    const expected = await buffered.buffered(buffered.request(method, path, body, accept));

    expect(response).toEqual(expected);
  });

  it('streams round-start, tool-call and tool-result events with ids naming the turn and their place in it, then turn-end', async () => {
    const { handle, request } = streaming([toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: '上海' } }]), textReply('晴')]);

    const response = await handle(request('POST', '/conversations', { message: '天气', requestId: 'ids-1' }));
    const stream = await readEventStream(response);

    expect(response.statusCode).toBe(200);
    expect(eventNames(stream)).toEqual(['round-start', 'tool-call', 'tool-result', 'round-start', 'text-delta', 'turn-end']);
    const turn = `${(stream.events[5]!.data as { conversationId: string }).conversationId}:1:${requestTag('ids-1')}`;
    expect(stream.events.map((event) => event.id)).toEqual([`${turn}:round-1`, `${turn}:call-1-1`, `${turn}:result-1-1`, `${turn}:round-2`, undefined, `${turn}:end`]);
    // The result as the model reads it, as it happens.
    expect(stream.events[2]!.data).toEqual({ round: 1, id: 'c1', name: 'getWeather', ok: true, durationMs: expect.any(Number), content: '{"city":"上海","condition":"晴"}' });
    expect(stream.events[5]!.data).toMatchObject({ turn: 1, reply: '晴', stopReason: 'completed', toolCalls: [{ id: 'c1', ok: true }] });
  });

  it('streams the answer as text-delta events before turn-end, adding up to the reply', async () => {
    const reasoning = { text: 'The user wants the weather.' };
    const { handle, request } = streaming([{ ...textReply('上海今天晴，最高 22°C。'), reasoning }]);

    const stream = await readEventStream(await handle(request('POST', '/conversations', { message: '天气' })));

    const deltas = stream.events.filter((event) => event.event === 'text-delta').map((event) => event.data as { round: number; text: string });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((delta) => delta.round === 1)).toBe(true);
    expect(deltas.map((delta) => delta.text).join('')).toBe('上海今天晴，最高 22°C。');
    const thoughts = stream.events.filter((event) => event.event === 'reasoning-delta').map((event) => (event.data as { text: string }).text);
    expect(thoughts.join('')).toBe('The user wants the weather.');
    expect(eventNames(stream).at(-1)).toBe('turn-end');
    expect(eventNames(stream).indexOf('text-delta')).toBeLessThan(eventNames(stream).indexOf('turn-end'));
  });

  it('sends a heartbeat comment every heartbeatMs while the turn runs, and clears the timer when it ends', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const held = heldReply();
    const { handle, request } = streaming([held.step]);

    const response = await handle(request('POST', '/conversations/slow/messages', { message: 'hi' }));
    vi.advanceTimersByTime(HEARTBEAT_MS * 3);
    held.release();
    const stream = await readEventStream(response);

    expect(stream.received.map((item) => (item.kind === 'event' ? item.event : `: ${item.text}`)).filter((name) => name !== 'text-delta')).toEqual(['round-start', ': heartbeat', ': heartbeat', ': heartbeat', 'turn-end']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends with an error event carrying the JSON error and its status when the model fails mid-stream', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { handle, request } = streaming([new ModelError('model_timeout', 'no answer within 60 s', { timeout: true })]);

    const stream = await readEventStream(await handle(request('POST', '/conversations/late/messages', { message: 'hi' })));

    expect(eventNames(stream)).toEqual(['round-start', 'error']);
    expect(stream.events[1]!.data).toEqual({ error: { code: 'model_timeout', message: expect.stringMatching(/no answer within 60 s/) }, status: 504 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers a busy conversation with the 409 JSON response before committing to a stream', async () => {
    const held = heldReply();
    const { handle, request } = streaming([held.step]);
    const first = await handle(request('POST', '/conversations/busy/messages', { message: 'one' }));

    const second = await handle(request('POST', '/conversations/busy/messages', { message: 'two' }));

    expect(second).toMatchObject({ statusCode: 409, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(JSON.parse(second.body as string)).toMatchObject({ error: { code: 'conversation_busy' } });
    held.release();
    expect(eventNames(await readEventStream(first))).toEqual(['round-start', 'text-delta', 'text-delta', 'turn-end']);
  });

  it('answers 503 JSON when no model is configured', async () => {
    const { handle, request } = streaming(null);
    const response = await handle(request('POST', '/conversations', { message: 'hi' }));
    expect(response).toMatchObject({ statusCode: 503, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(JSON.parse(response.body as string)).toMatchObject({ error: { code: 'model_not_configured' } });
  });

  it('streams a replayed turn (same requestId) as a single turn-end event', async () => {
    const { handle, request, model } = streaming([textReply('once')]);
    await readEventStream(await handle(request('POST', '/conversations/again/messages', { message: 'hi', requestId: 'r-1' })));

    const replay = await readEventStream(await handle(request('POST', '/conversations/again/messages', { message: 'hi', requestId: 'r-1' })));

    expect(eventNames(replay)).toEqual(['turn-end']);
    expect(replay.events[0]!.data).toMatchObject({ conversationId: 'again', turn: 1, reply: 'once' });
    expect(model!.requests).toHaveLength(1);
  });

  it('finishes and stores the turn of a client that disconnects, and stops its heartbeat', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const held = heldReply();
    const { handle, request, agent, warnings } = streaming([held.step]);
    const response = await handle(request('POST', '/conversations/gone/messages', { message: 'hi' }));
    if (!isEventStreamResponse(response)) throw new Error('expected an event stream');

    response.body.destroy();
    await once(response.body, 'close');
    vi.advanceTimersByTime(HEARTBEAT_MS * 2);
    held.release();
    await response.body.settled;

    expect(warnings()).toEqual([expect.stringMatching(/closed by the client before the turn ended/)]);
    expect((await agent.getConversation({ conversationId: 'gone' })).turns).toEqual([expect.objectContaining({ turn: 1, stopReason: 'completed' })]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('withIdleLimit', () => {
  const frontDoors = configuredFrontDoors({ openaiApi: { modelId: 'mcp-agent' } });
  const request = (accept: string, deadlineAt?: number): HttpRequest => ({ method: 'POST', path: '/conversations', headers: { accept }, body: '{}', ...(deadlineAt === undefined ? {} : { deadlineAt }) });

  it('gives a JSON client at most the idle limit, since it receives nothing until the turn ends', () => {
    expect(withIdleLimit(frontDoors, request('application/json', 1_000_000), 0, 270_000).deadlineAt).toBe(270_000);
    expect(withIdleLimit(frontDoors, request('application/json'), 5, 270_000).deadlineAt).toBe(270_005);
  });

  it('keeps an earlier deadline', () => {
    expect(withIdleLimit(frontDoors, request('application/json', 60_000), 0, 270_000).deadlineAt).toBe(60_000);
  });

  it('leaves an event-stream client the whole invocation, its heartbeats keep the stream alive', () => {
    expect(withIdleLimit(frontDoors, request('text/event-stream', 900_000), 0, 270_000).deadlineAt).toBe(900_000);
  });
});
