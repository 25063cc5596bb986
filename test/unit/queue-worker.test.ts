import { describe, expect, it } from 'vitest';
import { InputError, ModelError } from '../../lib/core/errors.ts';
import type { TurnResult } from '../../lib/core/turn.ts';
import type { TurnAnnouncer } from '../../lib/core/ports/turn-announcer.ts';
import { createSkippingAnnouncer } from '../../lib/queue/announcer.ts';
import { createQueueWorker } from '../../lib/queue/worker.ts';
import { textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import directInvoke from '../fixtures/events/direct-invoke.json' with { type: 'json' };
import eventBridgeEvent from '../fixtures/events/eventbridge-turn-requested.json' with { type: 'json' };

function worker(script: Parameters<typeof agentFixture>[0], options: { failAnnouncement?: boolean; yaml?: string } = {}) {
  const fixture = agentFixture(script, options.yaml ? { yaml: options.yaml } : {});
  const announced: Array<{ result: TurnResult; requestId: string }> = [];
  const announcer: TurnAnnouncer = {
    async announce(result, requestId) {
      if (options.failAnnouncement) throw new Error('PutEvents failed');
      announced.push({ result, requestId });
    },
  };
  const logger = recordingLogger();
  return { ...fixture, announced, logs: logger.entries, work: createQueueWorker({ agent: fixture.agent, announcer, logger, config: fixture.config }) };
}

describe('the queue worker with an EventBridge event', () => {
  it('runs the turn of an AgentTurnRequested event, returns its result and announces it', async () => {
    const cancel = toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]);
    const { work, store, announced } = worker([cancel, textReply('已取消')]);

    const result = await work(eventBridgeEvent, lambdaContext());

    expect(result).toMatchObject({ conversationId: 'orders-events', turn: 1, reply: '已取消', stopReason: 'completed', toolCalls: [{ name: 'batchCancelOrdersByOrderNo', ok: true }] });
    expect((await store.readAll({ conversationId: 'orders-events' }))[0]?.requestIds[0]).toBe('evt-6a7e8feb-b491-4cf7');
    expect(announced).toEqual([{ result, requestId: 'evt-6a7e8feb-b491-4cf7' }]);
  });

  it('asks for the structured answer a request\'s responseFormat describes, and announces it as output', async () => {
    const { work, model, announced } = worker([textReply('{"id": "ORD1"}')]);
    const responseFormat = { type: 'json_schema', name: 'order', schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } };

    const result = await work({ ...eventBridgeEvent, detail: { ...eventBridgeEvent.detail, responseFormat } }, lambdaContext());

    expect(result).toMatchObject({ stopReason: 'completed', output: { id: 'ORD1' } });
    expect(announced[0]?.result.output).toEqual({ id: 'ORD1' });
    expect(JSON.stringify(model!.requests[0])).toContain('"order"');
  });

  it('throws for an event of another detail-type, so it goes to the on-failure destination', async () => {
    const { work, model } = worker([textReply('never')]);

    await expect(work({ ...eventBridgeEvent, 'detail-type': 'OrderPlaced' }, lambdaContext())).rejects.toThrow(/"OrderPlaced".*AgentTurnRequested/);
    expect(model!.requests).toHaveLength(0);
  });
});

describe('the queue worker with a direct invoke', () => {
  it('holds a 15-minute invocation’s turn under the short lease (turn.leaseSeconds), not until its deadline', async () => {
    let answer!: () => void;
    let asked!: () => void;
    const modelAsked = new Promise<void>((resolve) => (asked = resolve));
    const gate = new Promise<void>((resolve) => (answer = resolve));
    const { work, store } = worker([async () => (asked(), await gate, textReply('四个工具'))]);

    const running = work(directInvoke, lambdaContext({ remainingMs: 900_000 }));
    await modelAsked;
    const [claim] = await store.readRecent({ conversationId: 'direct-invoke' }, () => false);
    answer();
    await running;

    expect(claim?.status).toBe('running');
    expect(claim!.leaseExpiresAt! - Date.now()).toBeLessThanOrEqual(30_000);
    expect(claim!.leaseExpiresAt! - Date.now()).toBeGreaterThan(25_000);
  });

  it('returns the turn result as JSON', async () => {
    const { work } = worker([textReply('四个工具')]);

    const result = await work(directInvoke, lambdaContext());

    expect(JSON.parse(JSON.stringify(result))).toMatchObject({ conversationId: 'direct-invoke', turn: 1, reply: '四个工具', stopReason: 'completed', rounds: 1 });
  });

  it('throws an error naming the field to fix for an invalid payload, and logs it', async () => {
    const { work, model, logs } = worker([textReply('never')]);

    await expect(work({ conversationId: 'c', message: 'hi' }, lambdaContext())).rejects.toSatisfy((error) => error instanceof InputError && /"requestId"/.test(error.message));
    expect(model!.requests).toHaveLength(0);
    expect(logs).toMatchObject([{ level: 'error', fields: { code: 'missing_request_id' } }]);
  });

  it('throws when the turn fails, so Lambda retries it, and announces nothing', async () => {
    const { work, announced } = worker([new ModelError('model_unavailable', 'HTTP 503')]);

    await expect(work(directInvoke, lambdaContext())).rejects.toBeInstanceOf(ModelError);
    expect(announced).toEqual([]);
  });

  it('throws when the announcement fails, although the turn is stored for the retry to replay', async () => {
    const { work, store } = worker([textReply('stored')], { failAnnouncement: true });

    await expect(work(directInvoke, lambdaContext())).rejects.toThrow('PutEvents failed');
    expect(await store.readAll({ conversationId: 'direct-invoke' })).toHaveLength(1);
  });
});

describe('the queue worker with a turn that waits for approval', () => {
  const APPROVALS = 'mcpServers:\n  fake: { command: unused, requireApproval: destructive }';
  const cancel = toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }]);

  it('announces the paused turn with its pendingApprovals, and resumes it from {conversationId, requestId, decisions}', async () => {
    const { work, announced, gateway } = worker([cancel, textReply('已取消')], { yaml: APPROVALS });

    const paused = await work({ conversationId: 'queued-orders', message: '取消 ORD1', requestId: 'ticket-1' }, lambdaContext());
    expect(paused).toMatchObject({ stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'c1' }] });
    expect(gateway.calls).toEqual([]);

    const resumed = await work({ conversationId: 'queued-orders', decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'ticket-1-approval' }, lambdaContext());
    expect(resumed).toMatchObject({ turn: 1, stopReason: 'completed', reply: '已取消' });
    expect(gateway.calls.map((call) => call.name)).toEqual(['batchCancelOrdersByOrderNo']);
    expect(announced.map(({ result, requestId }) => [requestId, result.stopReason])).toEqual([['ticket-1', 'approval_required'], ['ticket-1-approval', 'completed']]);
  });

  it('takes decisions from an AgentApprovalDecided event', async () => {
    const { work } = worker([cancel, textReply('不取消')], { yaml: APPROVALS });
    await work({ conversationId: 'event-orders', message: '取消 ORD1', requestId: 'ask-1' }, lambdaContext());
    const event = { ...eventBridgeEvent, 'detail-type': 'AgentApprovalDecided', detail: { conversationId: 'event-orders', requestId: 'decide-1', decisions: [{ toolCallId: 'c1', approved: false }] } };
    await expect(work(event, lambdaContext())).resolves.toMatchObject({ stopReason: 'completed', reply: '不取消' });
  });

  it('refuses a payload with both a message and decisions', async () => {
    const { work } = worker([], { yaml: APPROVALS });
    await expect(work({ conversationId: 'c', message: 'hi', decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'r' }, lambdaContext())).rejects.toMatchObject({ code: 'invalid_payload' });
  });
});

describe('the queue worker with records from another event source', () => {
  it('refuses them, naming the source, instead of treating them as turn requests', async () => {
    const { work } = worker([]);
    const s3Event = { Records: [{ eventVersion: '2.1', eventSource: 'aws:s3', awsRegion: 'us-east-1', eventName: 'ObjectCreated:Put' }] };

    await expect(work(s3Event, lambdaContext())).rejects.toThrow(/"aws:s3"/);
  });
});

describe('createSkippingAnnouncer', () => {
  it('says once that turns are not announced without an event bus', async () => {
    const logger = recordingLogger();
    const announcer = createSkippingAnnouncer(logger);
    const result: TurnResult = { conversationId: 'c', turn: 1, reply: 'x', stopReason: 'completed', rounds: 1, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 } };

    await announcer.announce(result, 'r1');
    await announcer.announce(result, 'r2');

    expect(logger.entries).toMatchObject([{ level: 'info', message: expect.stringMatching(/EVENT_BUS_NAME is not set/) }]);
  });
});
