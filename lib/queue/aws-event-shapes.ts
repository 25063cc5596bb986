import { isJsonObject } from '../core/json.ts';

/**
 * The AWS event shapes the worker receives, declared structurally with only the fields read here,
 * so lib/ needs no aws-lambda types.
 */

/** One SQS message as Lambda's SQS event source delivers it. */
export interface SqsRecord {
  messageId: string;
  /** Needed to change the record's visibility (its retry delay). */
  receiptHandle?: string;
  body: string;
  eventSource: string;
  /** The queue the record came from: the worker reads two (lib/queue/senders.ts). */
  eventSourceARN?: string;
  attributes?: { ApproximateReceiveCount?: string; SenderId?: string };
  /** The sender's own attributes: a `traceparent` (String) joins the turn to the sender's trace. */
  messageAttributes?: Record<string, { stringValue?: string } | undefined>;
}

/** With ReportBatchItemFailures on the event source mapping, SQS retries only these messages. */
export interface SqsBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/**
 * An EventBridge event: what a rule hands a Lambda target, and the SQS message body when the
 * rule's target is a queue (without an input transformer).
 */
interface EventBridgeEvent {
  'detail-type': string;
  source?: string;
  detail: unknown;
}

export const SQS_EVENT_SOURCE = 'aws:sqs';


/** Any event with a `Records` array (SQS, but also S3, SNS, DynamoDB streams, Kinesis). */
export const hasRecords = (event: unknown): event is { Records: unknown[] } =>
  isJsonObject(event) && Array.isArray(event.Records);

export const isSqsRecord = (record: unknown): record is SqsRecord =>
  isJsonObject(record) && record.eventSource === SQS_EVENT_SOURCE && typeof record.messageId === 'string';

export const isEventBridgeEvent = (value: unknown): value is EventBridgeEvent =>
  isJsonObject(value) && typeof value['detail-type'] === 'string' && 'detail' in value;
