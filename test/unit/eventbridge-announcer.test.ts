import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEventBridgeTurnAnnouncer } from '../../lib/adapters/aws/eventbridge-announcer.ts';
import { AgentError } from '../../lib/core/errors.ts';
import type { TurnResult } from '../../lib/core/turn.ts';

const eventBridge = mockClient(EventBridgeClient);

const result: TurnResult = {
  conversationId: 'orders-events',
  turn: 3,
  reply: '订单 ORD20250514118567 已取消。',
  stopReason: 'completed',
  rounds: 2,
  toolCalls: [{ id: 'call_1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] }, ok: true, durationMs: 12 }],
  usage: { promptTokens: 188, completionTokens: 16 },
};

const announcer = () => createEventBridgeTurnAnnouncer({ client: new EventBridgeClient({ region: 'us-east-1' }), eventBusName: 'mcp-agent-bus' });

describe('the EventBridge turn announcer', () => {
  beforeEach(() => eventBridge.reset());

  it('announces a turn waiting for approval as AgentApprovalRequired, with its pendingApprovals', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    const paused: TurnResult = { ...result, stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'call_2', name: 'batchCancelOrdersByOrderNo', server: 'demo', arguments: { orderNos: ['ORD2'] } }] };

    await announcer().announce(paused, 'evt-2');

    const entry = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!;
    expect(entry).toMatchObject({ Source: 'mcp-agent', DetailType: 'AgentApprovalRequired' });
    expect(JSON.parse(entry.Detail!)).toMatchObject({ requestId: 'evt-2', stopReason: 'approval_required', pendingApprovals: paused.pendingApprovals });
  });

  it('puts one AgentTurnCompleted event from mcp-agent on the bus, with the turn result and requestId as detail', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });

    await announcer().announce(result, 'evt-6a7e8feb');

    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls).toHaveLength(1);
    const entries = calls[0]!.args[0].input.Entries!;
    expect(entries).toEqual([{ EventBusName: 'mcp-agent-bus', Source: 'mcp-agent', DetailType: 'AgentTurnCompleted', Detail: expect.any(String) }]);
    expect(JSON.parse(entries[0]!.Detail!)).toEqual({ ...result, requestId: 'evt-6a7e8feb' });
  });

  it.each([
    ['a finished turn', result, 'AgentTurnCompleted'],
    ['a paused turn', { ...result, stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'call_2', name: 'foo', server: 'demo', arguments: {} }] }, 'AgentApprovalRequired'],
  ] as const)('names the owner the turn acted for in %s, so consumers can route it to that user', async (_kind, turn, detailType) => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });

    await announcer().announce(turn as TurnResult, 'evt-7', 'eu-west-1:7c3e9a1b-2f4d-4e6a-8b0c-1d2e3f4a5b6c');

    const entry = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!;
    expect(entry.DetailType).toBe(detailType);
    expect(JSON.parse(entry.Detail!)).toMatchObject({ requestId: 'evt-7', owner: 'eu-west-1:7c3e9a1b-2f4d-4e6a-8b0c-1d2e3f4a5b6c' });
  });

  it('keeps the owner in an announcement too large for one event', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });

    await announcer().announce({ ...result, reply: '长'.repeat(100_000) }, 'r1', 'ada');

    expect(JSON.parse(eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.Detail!)).toMatchObject({ owner: 'ada', truncated: true });
  });

  it('throws event_publish_failed naming the reason when EventBridge rejects the entry', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }] });

    await expect(announcer().announce(result, 'r1')).rejects.toSatisfy(
      (error) => error instanceof AgentError && error.code === 'event_publish_failed' && /InternalFailure \(try again\)/.test(error.message) && /mcp-agent-bus/.test(error.message),
    );
  });

  it('wraps an SDK failure once, with the SDK error as cause', async () => {
    const sdkError = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    eventBridge.on(PutEventsCommand).rejects(sdkError);

    await expect(announcer().announce(result, 'r1')).rejects.toSatisfy(
      (error) => error instanceof AgentError && error.code === 'event_publish_failed' && error.cause === sdkError && /Rate exceeded/.test(error.message),
    );
  });

  it('announces a turn too large for one event without its reply and tool arguments, marked truncated', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    const huge = { ...result, reply: '长'.repeat(100_000) };

    await announcer().announce(huge, 'r1');

    const detail = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.Detail!;
    expect(Buffer.byteLength(detail)).toBeLessThan(256 * 1024);
    const { reply: _reply, ...summary } = result;
    expect(JSON.parse(detail)).toEqual({ ...summary, toolCalls: [{ id: 'call_1', name: 'batchCancelOrdersByOrderNo', ok: true, durationMs: 12 }], requestId: 'r1', truncated: true });
  });
});
