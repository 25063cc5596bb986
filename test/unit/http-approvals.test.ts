import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/core/logger.ts';
import { createStreamingHttpHandler } from '../../lib/front-doors/handlers.ts';
import { isEventStreamResponse } from '../../lib/http/event-stream.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';
import { eventNames, readEventStream } from '../support/sse-client.ts';

const APPROVALS = 'mcpServers:\n  fake: { command: unused, requireApproval: destructive }';
const weatherAndCancel = toolCallsReply([
  { id: 'w1', name: 'getWeather', arguments: { city: '上海' } },
  { id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD7'] } },
]);

function api(script: ScriptedStep[]) {
  const fixture = agentFixture(script, { yaml: APPROVALS });
  const handle = createStreamingHttpHandler({ agent: fixture.agent, logger: silentLogger, maxBodyBytes: fixture.config.http.maxBodyBytes, heartbeatMs: 1_000 });
  const request = (method: string, path: string, body?: unknown, accept = 'application/json'): HttpRequest => ({
    method,
    path,
    headers: { 'content-type': 'application/json', accept },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const json = async (method: string, path: string, body?: unknown) => {
    const response = await handle(request(method, path, body));
    if (isEventStreamResponse(response)) throw new Error('expected JSON');
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
  };
  const events = async (path: string, body: unknown) => readEventStream(await handle(request('POST', path, body, 'text/event-stream')));
  return { ...fixture, json, events };
}

describe('POST /conversations/{conversationId}/approvals', () => {
  it('pauses a turn with 200 and its pendingApprovals, and resumes it with the decisions', async () => {
    const { json, gateway } = api([weatherAndCancel, textReply('天气晴，订单已取消')]);
    const paused = await json('POST', '/conversations/orders-1/messages', { message: '查天气，取消 ORD7' });
    expect(paused).toMatchObject({
      status: 200,
      body: { turn: 1, stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'c1', name: 'batchCancelOrdersByOrderNo', server: 'fake', arguments: { orderNos: ['ORD7'] } }] },
    });
    expect(paused.body.reply).toMatch(/approval.*batchCancelOrdersByOrderNo \(c1\)/);
    const read = await json('GET', '/conversations/orders-1');
    expect(read.body.turns[0]).toMatchObject({ stopReason: 'approval_required', pendingApprovals: paused.body.pendingApprovals });

    const resumed = await json('POST', '/conversations/orders-1/approvals', { decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'ok-1' });
    expect(resumed).toMatchObject({ status: 200, body: { turn: 1, stopReason: 'completed', reply: '天气晴，订单已取消', rounds: 2 } });
    expect(gateway.calls.map((call) => call.name)).toEqual(['getWeather', 'batchCancelOrdersByOrderNo']);
    expect(await json('POST', '/conversations/orders-1/approvals', { decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'ok-1' })).toEqual(resumed);
  });

  it.each([
    ['no decisions', {}, 400, 'invalid_decisions'],
    ['decisions that are not a list', { decisions: { c1: true } }, 400, 'invalid_decisions'],
    ['a decision without approved', { decisions: [{ toolCallId: 'c1' }] }, 400, 'invalid_decisions'],
    ['an unknown field', { decisions: [{ toolCallId: 'c1', approved: true }], approve: true }, 400, 'unknown_field'],
    ['an unknown field in a decision', { decisions: [{ toolCallId: 'c1', approved: true, why: 'x' }] }, 400, 'unknown_field'],
    ['a call that is not waiting', { decisions: [{ toolCallId: 'c1', approved: true }, { toolCallId: 'nope', approved: true }] }, 409, 'approval_not_pending'],
  ])('answers %s with %i %s and leaves the calls waiting', async (_, body, status, code) => {
    const { json } = api([weatherAndCancel]);
    await json('POST', '/conversations/orders-2/messages', { message: '取消 ORD7' });
    const response = await json('POST', '/conversations/orders-2/approvals', body);
    expect(response).toMatchObject({ status, body: { error: { code } } });
    expect((await json('GET', '/conversations/orders-2')).body.turns[0].pendingApprovals).toHaveLength(1);
  });

  it('answers 409 approval_not_pending where nothing waits, and 404 for an unknown conversation', async () => {
    const { json } = api([textReply('hi')]);
    expect(await json('POST', '/conversations/none/approvals', { decisions: [{ toolCallId: 'x', approved: true }] })).toMatchObject({ status: 404, body: { error: { code: 'conversation_not_found' } } });
    await json('POST', '/conversations/quiet/messages', { message: 'hi' });
    expect(await json('POST', '/conversations/quiet/approvals', { decisions: [{ toolCallId: 'x', approved: true }] })).toMatchObject({ status: 409, body: { error: { code: 'approval_not_pending' } } });
  });

  it('takes only POST', async () => {
    const { json } = api([]);
    expect(await json('GET', '/conversations/x/approvals')).toMatchObject({ status: 405, headers: { allow: 'POST' } });
  });

  it('streams the pause as approval-required, then the resumed turn, as Server-Sent Events', async () => {
    const { events } = api([weatherAndCancel, textReply('done')]);
    const paused = await events('/conversations/orders-3/messages', { message: '取消 ORD7' });
    expect(eventNames(paused)).toEqual(['round-start', 'tool-call', 'tool-call', 'tool-result', 'approval-required', 'turn-end']);
    expect(paused.events[4]!.data).toEqual({ round: 1, pendingApprovals: [{ toolCallId: 'c1', name: 'batchCancelOrdersByOrderNo', server: 'fake', arguments: { orderNos: ['ORD7'] } }] });
    expect(paused.events[5]!.data).toMatchObject({ stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'c1' }] });

    const resumed = await events('/conversations/orders-3/approvals', { decisions: [{ toolCallId: 'c1', approved: false, reason: 'not now' }] });
    expect(eventNames(resumed).filter((name) => name !== 'text-delta')).toEqual(['tool-result', 'round-start', 'turn-end']);
    expect(resumed.events[0]!.data).toMatchObject({ round: 1, id: 'c1', ok: false });
    expect(resumed.events.at(-1)!.data).toMatchObject({ stopReason: 'completed', reply: 'done' });
  });

  it('answers a busy conversation with 409 and Retry-After until the running turn’s lease ends', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { json } = api([async () => { await gate; return textReply('slow'); }]);
    const running = json('POST', '/conversations/busy/messages', { message: 'first' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const busy = await json('POST', '/conversations/busy/messages', { message: 'second' });
    expect(busy).toMatchObject({ status: 409, body: { error: { code: 'conversation_busy' } } });
    // The lease's end: turn.leaseSeconds (30 s), renewed while the turn runs, not the turn's 300 s deadline.
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(busy.headers['retry-after'])).toBeLessThanOrEqual(30);
    release();
    await running;
  });
});
