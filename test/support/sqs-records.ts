import type { SqsRecord } from '../../lib/queue/aws-event-shapes.ts';

/** One message as Lambda's SQS event source delivers it; a string payload is the body as it is. */
export function sqsRecord(messageId: string, payload: unknown, options: { receiveCount?: number; eventSourceARN?: string } = {}): SqsRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
    eventSource: 'aws:sqs',
    ...(options.eventSourceARN ? { eventSourceARN: options.eventSourceARN } : {}),
    attributes: { ApproximateReceiveCount: String(options.receiveCount ?? 1) },
  };
}

/** The event of one batch. */
export const sqsEvent = (...records: SqsRecord[]) => ({ Records: records });
