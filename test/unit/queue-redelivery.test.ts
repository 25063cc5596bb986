import { ChangeMessageVisibilityBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqsRedeliveryScheduler } from '../../lib/adapters/aws/sqs-redelivery.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { SqsRecord } from '../../lib/queue/aws-event-shapes.ts';
import { redeliveryDelaySeconds, type RedeliveryScheduler } from '../../lib/core/ports/redelivery.ts';
import { createQueueWorker } from '../../lib/queue/worker.ts';
import { textReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import { sqsEvent, sqsRecord } from '../support/sqs-records.ts';

const sqs = mockClient(SQSClient);
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/mcp-agent-turns';
afterEach(() => sqs.reset());

describe('redeliveryDelaySeconds', () => {
  it.each([
    [1, 60], [2, 120], [3, 240], [4, 480], [5, 900], [12, 900], [Number.NaN, 60],
  ])('waits %s receives → %s s', (receiveCount, seconds) => {
    expect(redeliveryDelaySeconds(receiveCount)).toBe(seconds);
  });
});

describe('the queue worker with redelivery', () => {
  it('brings back exactly the failed records after their backoff', async () => {
    const scheduled: SqsRecord[] = [];
    const redelivery: RedeliveryScheduler<SqsRecord> = { scheduleRetry: async (records) => void scheduled.push(...records) };
    const fixture = agentFixture([textReply('one'), textReply('three')]);
    const work = createQueueWorker({ agent: fixture.agent, announcer: { announce: async () => {} }, logger: silentLogger, config: fixture.config, redelivery });

    const poison = sqsRecord('m2', { conversationId: 'c', message: 'no request id' }, { receiveCount: 2 });
    const response = await work(sqsEvent(sqsRecord('m1', { conversationId: 'c', message: 'one', requestId: 'r1' }), poison, sqsRecord('m3', { conversationId: 'd', message: 'three', requestId: 'r3' })), lambdaContext());

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
    expect(scheduled).toEqual([poison]);
  });
});

describe('createSqsRedeliveryScheduler', () => {
  it('changes each failed record\'s visibility to its backoff, ten records per request', async () => {
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({ Successful: [], Failed: [] });
    const scheduler = createSqsRedeliveryScheduler({ client: new SQSClient({ region: 'eu-west-1' }), queueUrl: QUEUE_URL, logger: silentLogger });
    const records = Array.from({ length: 12 }, (_, index) => sqsRecord(`m${index}`, {}, { receiveCount: (index % 3) + 1 }));

    await scheduler.scheduleRetry(records);

    const calls = sqs.commandCalls(ChangeMessageVisibilityBatchCommand);
    expect(calls.map((call) => call.args[0].input.Entries!.length)).toEqual([10, 2]);
    expect(calls[0]!.args[0].input).toMatchObject({ QueueUrl: QUEUE_URL });
    expect(calls[0]!.args[0].input.Entries!.slice(0, 3)).toEqual([
      { Id: '0', ReceiptHandle: 'handle-m0', VisibilityTimeout: 60 },
      { Id: '1', ReceiptHandle: 'handle-m1', VisibilityTimeout: 120 },
      { Id: '2', ReceiptHandle: 'handle-m2', VisibilityTimeout: 240 },
    ]);
  });

  it('never throws: a failed change only means the record returns after the visibility timeout', async () => {
    sqs.on(ChangeMessageVisibilityBatchCommand).rejects(new Error('AccessDenied'));
    const scheduler = createSqsRedeliveryScheduler({ client: new SQSClient({ region: 'eu-west-1' }), queueUrl: QUEUE_URL, logger: silentLogger });
    await expect(scheduler.scheduleRetry([sqsRecord('m1', {})])).resolves.toBeUndefined();
  });

  it('sends nothing when no record failed', async () => {
    const scheduler = createSqsRedeliveryScheduler({ client: new SQSClient({ region: 'eu-west-1' }), queueUrl: QUEUE_URL, logger: silentLogger });
    await scheduler.scheduleRetry([]);
    expect(sqs.calls()).toHaveLength(0);
  });
});
