import { AgentError, ConflictError, errorMessage, LimitError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { SqsBatchResponse, SqsRecord } from './aws-event-shapes.ts';
import { parseMessageBody, readTurnRequest, type TurnRequest } from './payload.ts';
import type { RedeliveryScheduler } from '../core/ports/redelivery.ts';
import { runAndAnnounce, type TurnRunner } from './run-turn.ts';
import { checkOwnerAllowed, senderOf } from './senders.ts';
import { readTraceContext } from '../core/trace-context.ts';

export interface BatchOptions extends TurnRunner {
  logger: Logger;
  maxMessageChars: number;
  /** Message bodies appear in logs only when agent.yml's logging.logPayloads is on. */
  logPayloads: boolean;
  /** No record is started with less time than this left before the deadline. */
  startMarginMs: number;
  /** Senders whose requests may name an `owner` (lib/queue/senders.ts). */
  trustedSenders: ReadonlySet<string>;
  /** Records of this queue were put there by the stack's EventBridge rule, and no one else. */
  eventQueueArn?: string;
  /** Brings failed records back after a short backoff instead of the whole visibility timeout. */
  redelivery?: RedeliveryScheduler<SqsRecord>;
  now: () => number;
}

interface QueuedTurn {
  record: SqsRecord;
  request: TurnRequest;
}

/**
 * Runs one turn per SQS record and reports exactly the failed records, so SQS retries only them.
 *
 *   record ─ parse ─┬─ invalid: failed (a poison message fails on every receive, so SQS moves it
 *                   │           to the dead-letter queue after maxReceiveCount)
 *                   └─ valid:   queued in its conversation's lane
 *
 * Lanes run concurrently (the batch size bounds them). A lane runs its records one after another
 * in batch order; once one fails, the rest of the lane are failed without running, so a retried
 * turn 1 never lands after turn 2. An invalid record blocks nothing: it never becomes a turn, and
 * blocking on it would send the valid records after it to the dead-letter queue too.
 */
export async function processSqsBatch(records: SqsRecord[], deadlineAt: number, options: BatchOptions): Promise<SqsBatchResponse> {
  const failed = new Set<string>();
  const lanes = new Map<string, QueuedTurn[]>();
  for (const record of records) {
    const request = readRecord(record, options);
    if (request === undefined) {
      failed.add(record.messageId);
      continue;
    }
    const lane = laneOf(request);
    lanes.set(lane, [...(lanes.get(lane) ?? []), { record, request }]);
  }
  await Promise.all([...lanes.values()].map((lane) => runLane(lane, deadlineAt, options, failed)));
  // In batch order, each message once (SQS may deliver a message twice in one batch).
  const failedInOrder = new Set(records.map((record) => record.messageId).filter((messageId) => failed.has(messageId)));
  await options.redelivery?.scheduleRetry(records.filter((record) => failed.has(record.messageId)));
  return { batchItemFailures: [...failedInOrder].map((messageId) => ({ itemIdentifier: messageId })) };
}

async function runLane(lane: QueuedTurn[], deadlineAt: number, options: BatchOptions, failed: Set<string>): Promise<void> {
  for (const [index, { record, request }] of lane.entries()) {
    const fields = { messageId: record.messageId, conversationId: request.conversationId, requestId: request.requestId };
    const remainingMs = deadlineAt - options.now();
    if (remainingMs < options.startMarginMs) {
      options.logger.warn('too little time left to start a turn: the record and the rest of its conversation are left for redelivery', {
        ...fields,
        remainingMs,
        startMarginMs: options.startMarginMs,
        messageIds: lane.slice(index).map((queued) => queued.record.messageId),
      });
      for (const queued of lane.slice(index)) failed.add(queued.record.messageId);
      return;
    }
    try {
      await runAndAnnounce(request, deadlineAt, options);
    } catch (error) {
      const later = lane.slice(index + 1).map((queued) => queued.record.messageId);
      logFailure(error, { ...fields, ...(later.length > 0 ? { laterMessageIds: later } : {}) }, options.logger);
      failed.add(record.messageId);
      for (const messageId of later) failed.add(messageId);
      return;
    }
  }
}

function readRecord(record: SqsRecord, options: BatchOptions): TurnRequest | undefined {
  try {
    const payload = parseMessageBody(record.body);
    const fromRule = options.eventQueueArn !== undefined && record.eventSourceARN === options.eventQueueArn;
    const sender = senderOf(fromRule ? 'event-queue' : 'queue', payload);
    const request = readTurnRequest(payload, options.maxMessageChars);
    checkOwnerAllowed(request, sender, options.trustedSenders);
    const attributes = record.messageAttributes;
    const trace = readTraceContext(attributes?.traceparent?.stringValue, attributes?.tracestate?.stringValue);
    return trace ? { ...request, trace } : request;
  } catch (error) {
    options.logger.error('invalid queue record: it fails on every receive and moves to the dead-letter queue after maxReceiveCount', {
      messageId: record.messageId,
      // SQS vouches for this one: the IAM principal that sent the message (EventBridge's, for the rule).
      senderId: record.attributes?.SenderId,
      receiveCount: record.attributes?.ApproximateReceiveCount,
      code: error instanceof AgentError ? error.code : 'invalid_payload',
      error: errorMessage(error),
      ...(options.logPayloads ? { body: record.body } : {}),
    });
    return undefined;
  }
}

/**
 * A busy conversation, or an owner at its limits (too many turns at once, a spent budget), is
 * routine: retried later. Anything else deserves attention.
 */
function logFailure(error: unknown, fields: Record<string, unknown>, logger: Logger): void {
  const code = error instanceof AgentError ? error.code : 'internal_error';
  const log = error instanceof ConflictError || error instanceof LimitError ? logger.warn : logger.error;
  log('queue record failed: it and any later records of its conversation are left for redelivery', { ...fields, code, error: errorMessage(error) });
}

/** Conversations are scoped by owner, so the owner is part of the lane. */
const laneOf = (request: TurnRequest): string => JSON.stringify([request.owner ?? null, request.conversationId]);
