/**
 * Who may make an asynchronous turn act for a user: the `owner` of a request is taken only from
 * senders the operator trusts (ownerSources), and the sender is decided by the channel AWS vouches
 * for, never by what the payload claims. Real event shapes: SQS records of the queue and of the
 * event queue, an EventBridge event, a direct invoke.
 */
import { describe, expect, it } from 'vitest';
import type { TurnResult } from '../../lib/core/turn.ts';
import type { TurnAnnouncer } from '../../lib/core/ports/turn-announcer.ts';
import type { RedeliveryScheduler } from '../../lib/core/ports/redelivery.ts';
import { redeliveryByQueue } from '../../lib/queue/redelivery.ts';
import type { SqsRecord } from '../../lib/queue/aws-event-shapes.ts';
import { createQueueWorker } from '../../lib/queue/worker.ts';
import { textReply } from '../../lib/testing/scripted-model.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { agentFixture } from '../support/agent-fixture.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import directInvoke from '../fixtures/events/direct-invoke.json' with { type: 'json' };
import eventBridgeEvent from '../fixtures/events/eventbridge-turn-requested.json' with { type: 'json' };
import sqsBatch from '../fixtures/events/sqs-batch.json' with { type: 'json' };
import sqsEventBridgeRecord from '../fixtures/events/sqs-eventbridge-record.json' with { type: 'json' };

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:mcp-agent-turns';
const EVENT_QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:mcp-agent-event-turns';
const ADA = 'eu-west-1:7c3e9a1b-2f4d-4e6a-8b0c-1d2e3f4a5b6c';

function worker(trustedSenders: string[]) {
  const fixture = agentFixture([textReply('好的'), textReply('好的'), textReply('好的')]);
  const announced: Array<{ requestId: string; owner?: string }> = [];
  const announcer: TurnAnnouncer = {
    async announce(_result: TurnResult, requestId: string, owner?: string) {
      announced.push({ requestId, ...(owner === undefined ? {} : { owner }) });
    },
  };
  const work = createQueueWorker({ agent: fixture.agent, announcer, logger: silentLogger, config: fixture.config, trustedSenders, eventQueueArn: EVENT_QUEUE_ARN });
  return { ...fixture, work, announced };
}

/** The rule's delivery: an EventBridge event from `source` as the body of a record of the event queue. */
function eventQueueRecord(source: string, detail: Record<string, unknown>): SqsRecord {
  const template = sqsEventBridgeRecord.Records[0]!;
  const envelope = { ...JSON.parse(template.body), source, detail };
  return { ...template, body: JSON.stringify(envelope), eventSourceARN: EVENT_QUEUE_ARN };
}

/** A plain message on the queue. */
function queueRecord(body: unknown): SqsRecord {
  return { ...sqsBatch.Records[0]!, body: JSON.stringify(body), eventSourceARN: QUEUE_ARN };
}

const ask = { conversationId: 'orders-42', message: '我的订单呢？', requestId: 'evt-1' };

describe('an owner in an asynchronous request', () => {
  it('is taken from an event the rule delivered from a trusted source, and announced with the turn', async () => {
    const { work, store, announced } = worker(['com.example.orders']);

    const response = await work({ Records: [eventQueueRecord('com.example.orders', { ...ask, owner: ADA })] }, lambdaContext());

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await store.readAll({ conversationId: 'orders-42', owner: ADA })).toHaveLength(1);
    expect(await store.readAll({ conversationId: 'orders-42' })).toHaveLength(0);
    expect(announced).toEqual([{ requestId: 'evt-1', owner: ADA }]);
  });

  it('is refused from an event source the operator did not trust, even through the event queue', async () => {
    const { work, model } = worker(['com.example.orders']);
    const record = eventQueueRecord('com.example.billing', { ...ask, owner: ADA });

    expect(await work({ Records: [record] }, lambdaContext())).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
    expect(model!.requests).toHaveLength(0);
  });

  it('is refused from a queue message shaped as an event of a trusted source: only the rule writes to the event queue', async () => {
    const { work, model } = worker(['com.example.orders']);
    const forged = queueRecord({ ...JSON.parse(sqsEventBridgeRecord.Records[0]!.body), source: 'com.example.orders', detail: { ...ask, owner: ADA } });

    expect(await work({ Records: [forged] }, lambdaContext())).toEqual({ batchItemFailures: [{ itemIdentifier: forged.messageId }] });
    expect(model!.requests).toHaveLength(0);
  });

  it('is taken from a plain queue message when the operator trusts the queue', async () => {
    const { work, store } = worker(['queue']);

    expect(await work({ Records: [queueRecord({ ...ask, owner: ADA })] }, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(await store.readAll({ conversationId: 'orders-42', owner: ADA })).toHaveLength(1);
  });

  it.each([
    ['a direct invoke', { ...directInvoke, owner: ADA }],
    ['an EventBridge event invoked directly, whatever source it claims', { ...eventBridgeEvent, source: 'com.example.orders', detail: { ...eventBridgeEvent.detail, owner: ADA } }],
  ])('is refused in %s unless the operator trusts invokes', async (_kind, payload) => {
    await expect(worker(['com.example.orders', 'queue']).work(payload, lambdaContext())).rejects.toMatchObject({ code: 'owner_not_allowed' });
    await expect(worker(['invoke']).work(payload, lambdaContext())).resolves.toMatchObject({ stopReason: 'completed' });
  });

  it('is not needed: a request without one runs unscoped from any sender', async () => {
    const { work, store, announced } = worker([]);

    expect(await work({ Records: [eventQueueRecord('com.example.billing', ask)] }, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(await store.readAll({ conversationId: 'orders-42' })).toHaveLength(1);
    expect(announced).toEqual([{ requestId: 'evt-1' }]);
  });

  it('names the sender and the trusted ones in the refusal', async () => {
    await expect(worker(['com.example.orders']).work({ ...directInvoke, owner: ADA }, lambdaContext()))
      .rejects.toThrow(/"invoke" is not one of them \(trusted: com\.example\.orders; CDK context ownerSources\)/);
  });
});

describe('a record of the event queue', () => {
  it('must be an EventBridge event', async () => {
    const { work, model } = worker([]);
    const record = { ...queueRecord(ask), eventSourceARN: EVENT_QUEUE_ARN };

    expect(await work({ Records: [record] }, lambdaContext())).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
    expect(model!.requests).toHaveLength(0);
  });
});

describe('redeliveryByQueue', () => {
  it('hands each failed record to the scheduler of the queue it came from', async () => {
    const seen: Record<string, string[]> = { queue: [], events: [] };
    const recording = (name: string): RedeliveryScheduler<SqsRecord> => ({ scheduleRetry: async (records) => void seen[name]!.push(...records.map((record) => record.messageId)) });
    const scheduler = redeliveryByQueue(new Map([[EVENT_QUEUE_ARN, recording('events')]]), recording('queue'));

    await scheduler.scheduleRetry([
      { ...queueRecord(ask), messageId: 'q1' },
      { ...eventQueueRecord('com.example.orders', ask), messageId: 'e1' },
      { ...queueRecord(ask), messageId: 'q2', eventSourceARN: undefined },
    ]);

    expect(seen).toEqual({ queue: ['q1', 'q2'], events: ['e1'] });
  });
});
