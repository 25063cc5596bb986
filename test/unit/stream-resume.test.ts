import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../lib/agent/loop/loop-events.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createHttpHandler, createStreamingHttpHandler } from '../../lib/front-doors/handlers.ts';
import { isEventStreamResponse, type StreamingHttpResponse } from '../../lib/http/event-stream.ts';
import { livePositions } from '../../lib/front-doors/native/live-positions.ts';
import { comparePositions, formatStreamId, parseStreamId, requestTag, type StreamPosition } from '../../lib/front-doors/native/stream-ids.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';
import { eventNames, eventStreamReader, readEventStream, type ReceivedEvent } from '../support/sse-client.ts';

const APPROVALS = 'maxRounds: 4\nmcpServers:\n  fake: { command: unused, requireApproval: destructive }';

function api(script: ScriptedStep[], yaml?: string) {
  const fixture = agentFixture(script, yaml ? { yaml } : {});
  const options = { agent: fixture.agent, logger: silentLogger, maxBodyBytes: fixture.config.http.maxBodyBytes, heartbeatMs: 1_000 };
  const handle = createStreamingHttpHandler(options);
  const buffered = createHttpHandler(options);
  const request = (path: string, body: unknown, headers: Record<string, string> = {}, owner?: string): HttpRequest => ({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
    ...(owner ? { owner } : {}),
  });
  return { ...fixture, handle, buffered, request };
}

const positionOf = (event: ReceivedEvent) => event.id?.split(':').slice(3).join(':');
const jsonOf = (response: StreamingHttpResponse) => {
  if (isEventStreamResponse(response)) throw new Error('expected a JSON response');
  return { status: response.statusCode, body: response.body ? (JSON.parse(response.body) as { error: { code: string; message: string } }) : undefined };
};

describe('event ids (lib/front-doors/native/stream-ids.ts)', () => {
  it.each<[string, StreamPosition]>([
    ['c-1:3:abc_-1:round-2', { kind: 'round', round: 2 }],
    ['c-1:3:abc_-1:call-2-1', { kind: 'call', round: 2, index: 1 }],
    ['c-1:3:abc_-1:result-12-4', { kind: 'result', round: 12, index: 4 }],
    ['c-1:3:abc_-1:end', { kind: 'end' }],
  ])('reads %s back as the id it was written from', (text, position) => {
    const id = { conversationId: 'c-1', turn: 3, tag: 'abc_-1', position };
    expect(formatStreamId(id)).toBe(text);
    expect(parseStreamId(text)).toEqual(id);
  });

  it.each([
    ['a number, as the stream sent before ids named the turn', '5'],
    ['no position', 'c-1:3:abc_-1'],
    ['an unknown position', 'c-1:3:abc_-1:delta-2'],
    ['turn 0', 'c-1:0:abc_-1:end'],
    ['round 0', 'c-1:1:abc_-1:round-0'],
    ['a short tag', 'c-1:1:abc:end'],
    ['a conversation id with a dot', 'c.1:1:abc_-1:end'],
  ])('refuses %s with 400 invalid_last_event_id', (_, text) => {
    expect(() => parseStreamId(text)).toThrow(expect.objectContaining({ code: 'invalid_last_event_id' }));
  });

  it('orders positions as a turn sends them: round, its calls, its results, the next round, the end', () => {
    const order: StreamPosition[] = [
      { kind: 'round', round: 1 },
      { kind: 'call', round: 1, index: 1 },
      { kind: 'call', round: 1, index: 2 },
      { kind: 'result', round: 1, index: 1 },
      { kind: 'result', round: 1, index: 2 },
      { kind: 'round', round: 2 },
      { kind: 'end' },
    ];
    const shuffled = [order[4]!, order[6]!, order[0]!, order[5]!, order[2]!, order[3]!, order[1]!];
    expect(shuffled.sort(comparePositions)).toEqual(order);
  });

  it('tags a turn with six characters of its request id hash', () => {
    expect(requestTag('req-1')).toMatch(/^[A-Za-z0-9_-]{6}$/);
    expect(requestTag('req-1')).toBe(requestTag('req-1'));
    expect(requestTag('req-1')).not.toBe(requestTag('req-2'));
  });
});

describe('live positions (lib/front-doors/native/live-positions.ts)', () => {
  const record = (id: string) => ({ id, name: 'getWeather', arguments: {}, ok: true, durationMs: 1 });

  it('gives a result an id only once every earlier call of its round has its result', () => {
    const positionOf = livePositions();
    const events: LoopEvent[] = [
      { type: 'round-start', round: 1 },
      { type: 'text-delta', round: 1, text: 'checking' },
      { type: 'tool-call', round: 1, call: { id: 'a', name: 'getWeather', arguments: {} } },
      { type: 'tool-call', round: 1, call: { id: 'b', name: 'getWeather', arguments: {} } },
      { type: 'tool-call', round: 1, call: { id: 'c', name: 'getWeather', arguments: {} } },
      { type: 'tool-result', round: 1, result: record('b'), content: 'b' },
      { type: 'tool-result', round: 1, result: record('a'), content: 'a' },
      { type: 'tool-result', round: 1, result: record('c'), content: 'c' },
      { type: 'approval-required', round: 1, pendingApprovals: [] },
    ];

    expect(events.map(positionOf)).toEqual([
      { kind: 'round', round: 1 },
      undefined,
      { kind: 'call', round: 1, index: 1 },
      { kind: 'call', round: 1, index: 2 },
      { kind: 'call', round: 1, index: 3 },
      undefined,
      { kind: 'result', round: 1, index: 2 },
      { kind: 'result', round: 1, index: 3 },
      undefined,
    ]);
  });

  it('gives no id to results of calls this stream did not announce (a resumed turn decided in another request)', () => {
    const positionOf = livePositions();
    expect(positionOf({ type: 'tool-result', round: 1, result: record('a'), content: 'a' })).toBeUndefined();
    expect(positionOf({ type: 'round-start', round: 2 })).toEqual({ kind: 'round', round: 2 });
  });
});

describe('resuming a turn stream with Last-Event-ID', () => {
  const weatherAndCancel = toolCallsReply([
    { id: 'w1', name: 'getWeather', arguments: { city: '上海' } },
    { id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD7'] } },
  ]);

  it('replays, after each id of a live stream, exactly the events that followed it, and runs nothing', async () => {
    // Prepare: a turn of two tool rounds and an answer, streamed live.
    const { handle, request, model, gateway } = api([
      { ...toolCallsReply([{ id: 'w1', name: 'getWeather', arguments: { city: '上海' } }, { id: 'w2', name: 'getWeather', arguments: { city: '北京' } }]), content: '查一下。' },
      toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD7'] } }]),
      textReply('都好了。'),
    ]);
    const live = await readEventStream(await handle(request('/conversations/replayed/messages', { message: '天气，取消 ORD7', requestId: 'live-1' })));
    const withIds = live.events.filter((event) => event.id !== undefined);
    expect(withIds.map(positionOf)).toContain('result-2-1');

    for (const [at, last] of withIds.slice(0, -1).entries()) {
      // Act: resume after each of them, with a body that would be a new turn.
      const resumed = await readEventStream(await handle(request('/conversations', { message: 'anything at all' }, { 'last-event-id': last.id! })));

      // Assess: the same events with the same ids and data; what had no id comes whole (text in one piece).
      const expected = withIds.slice(at + 1);
      expect(resumed.events.filter((event) => event.id !== undefined).map(({ event, id, data }) => ({ event, id, data }))).toEqual(expected.map(({ event, id, data }) => ({ event, id, data })));
      const text = (events: ReceivedEvent[]) => events.filter((event) => event.event === 'text-delta').map((event) => (event.data as { text: string }).text).join('');
      const liveIndex = live.events.indexOf(last);
      expect(text(resumed.events)).toBe(text(live.events.slice(live.events.findLastIndex((event, index) => index <= liveIndex && event.id !== undefined))));
    }
    expect(model!.requests).toHaveLength(3);
    expect(gateway.calls).toHaveLength(3);
  });

  it('answers 204 after the last event, on any turn route, the buffered one included', async () => {
    const { handle, buffered, request, model } = api([textReply('一。')]);
    const live = await readEventStream(await handle(request('/conversations/done/messages', { message: '一', requestId: 'done-1' })));
    const end = live.events.at(-1)!;
    expect(positionOf(end)).toBe('end');

    for (const path of ['/conversations', '/conversations/done/messages', '/conversations/done/approvals']) {
      expect(await handle(request(path, { message: 'again' }, { 'last-event-id': end.id! }))).toEqual({ statusCode: 204, headers: {}, body: '' });
      expect(await buffered(request(path, { message: 'again' }, { 'last-event-id': end.id!, accept: 'application/json' }))).toEqual({ statusCode: 204, headers: {}, body: '' });
    }
    expect(model!.requests).toHaveLength(1);
  });

  it('replays a paused turn up to its pause: approval-required, then turn-end', async () => {
    const { handle, request } = api([weatherAndCancel], APPROVALS);
    const live = await readEventStream(await handle(request('/conversations/paused/messages', { message: '天气，取消 ORD7' })));
    const roundStart = live.events[0]!;

    const resumed = await readEventStream(await handle(request('/conversations/paused/messages', { message: 'x' }, { 'last-event-id': roundStart.id! })));

    expect(eventNames(resumed)).toEqual(['tool-call', 'tool-call', 'tool-result', 'approval-required', 'turn-end']);
    expect(resumed.events.map(positionOf)).toEqual(['call-1-1', 'call-1-2', 'result-1-1', undefined, 'end']);
    expect(resumed.events.at(-1)!.data).toMatchObject({ stopReason: 'approval_required' });
  });

  it('follows a running turn from its record until it ends, with a retry field first', async () => {
    // Prepare: a cancelling round (recorded before and after its call), then an answer held back.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { handle, request } = api([
      toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD7'] } }]),
      async () => {
        await released;
        return textReply('已取消。');
      },
    ]);
    const ids: string[] = [];
    const liveResponse = await handle(request('/conversations/running/messages', { message: '取消 ORD7' }));
    if (!isEventStreamResponse(liveResponse)) throw new Error('expected a stream');
    let received = '';
    liveResponse.body.on('data', (chunk) => {
      received += String(chunk);
      ids.push(...[...received.matchAll(/^id: (.+)$/gm)].map((found) => found[1]!).filter((id) => !ids.includes(id)));
    });
    while (!ids.some((id) => id.endsWith(':result-1-1'))) await new Promise((resolve) => setTimeout(resolve, 10));

    // Act: resume after the round's start while the model is still answering.
    const resumedResponse = await handle(request('/conversations/running/messages', { message: 'x' }, { 'last-event-id': ids[0]! }));
    if (!isEventStreamResponse(resumedResponse)) throw new Error('expected a stream');
    let resumedText = '';
    const ended = new Promise<void>((resolve) => resumedResponse.body.on('end', resolve));
    resumedResponse.body.on('data', (chunk) => (resumedText += String(chunk)));
    while (!resumedText.includes('event: tool-result')) await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    await ended;
    const resumed = eventStreamReader();
    resumed.feed(resumedText);

    // Assess: what the record held at once, the rest when the turn was stored.
    expect(resumedText.startsWith('retry: 1000\n\n')).toBe(true);
    expect(eventNames(resumed)).toEqual(['tool-call', 'tool-result', 'round-start', 'text-delta', 'turn-end']);
    expect(resumed.events.at(-1)!.data).toMatchObject({ reply: '已取消。', stopReason: 'completed' });
  });

  it('answers 404 after the error event of a turn that failed before anything was stored, and runs nothing', async () => {
    const { handle, request, model } = api([new Error('the model is down')]);
    const live = await readEventStream(await handle(request('/conversations/failed/messages', { message: '一' })));
    expect(eventNames(live)).toEqual(['round-start', 'error']);

    const answer = jsonOf(await handle(request('/conversations/failed/messages', { message: '一' }, { 'last-event-id': live.events.at(-1)!.id! })));

    expect(answer).toMatchObject({ status: 404, body: { error: { code: 'turn_not_found', message: expect.stringContaining('nothing was carried out') } } });
    expect(model!.requests).toHaveLength(1);
  });

  it('completes a followed turn whose process died (its lease ended) as interrupted, and ends the stream with it', async () => {
    // Prepare: a turn that never gets its answer, on a clock the test moves.
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const fixture = agentFixture([() => new Promise<never>(() => undefined)], { now: () => clock, yaml: 'turn: { timeoutSeconds: 60, leaseMarginSeconds: 0 }' });
    const handle = createStreamingHttpHandler({ agent: fixture.agent, logger: silentLogger, maxBodyBytes: 65_536, heartbeatMs: 1_000 });
    const request = (headers: Record<string, string> = {}): HttpRequest => ({ method: 'POST', path: '/conversations/died/messages', headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers }, body: '{"message":"一"}' });
    const live = await handle(request());
    if (!isEventStreamResponse(live)) throw new Error('expected a stream');
    const firstId = await new Promise<string>((resolve) => live.body.on('data', (chunk) => {
      const found = /^id: (.+)$/m.exec(String(chunk));
      if (found) resolve(found[1]!);
    }));

    // Act: the lease has ended (its process is taken for dead) when a client resumes.
    clock += 61_000;
    const resumed = await readEventStream(await handle(request({ 'last-event-id': firstId })));

    // Assess
    expect(eventNames(resumed)).toEqual(['turn-end']);
    expect(resumed.events[0]!.data).toMatchObject({ conversationId: 'died', turn: 1, stopReason: 'interrupted' });
    live.body.destroy();
  });

  it.each([
    ['a malformed id', '/conversations', () => 'nonsense', 400, 'invalid_last_event_id'],
    ['an id of another conversation than the path', '/conversations/other/messages', (id: string) => id, 400, 'invalid_last_event_id'],
    ['a turn that does not exist', '/conversations', (id: string) => id.replace(':1:', ':2:'), 404, 'turn_not_found'],
    ['another request\'s tag', '/conversations', (id: string) => id.replace(/:[^:]{6}:/, ':zzzzzz:'), 404, 'turn_not_found'],
    ['another owner\'s conversation', '/conversations', (id: string) => id, 404, 'turn_not_found', 'mallory'],
  ])('refuses %s with %i %s, and starts no turn', async (_, path, lastEventId, status, code, owner?: string) => {
    const { handle, request, model } = api([textReply('一。')]);
    const live = await readEventStream(await handle(request('/conversations/mine/messages', { message: '一' }, {}, 'alice')));
    const roundStart = live.events[0]!.id!;

    const answer = jsonOf(await handle(request(path, { message: 'again' }, { 'last-event-id': lastEventId(roundStart) }, owner ?? 'alice')));

    expect(answer).toMatchObject({ status, body: { error: { code } } });
    expect(model!.requests).toHaveLength(1);
  });
});
