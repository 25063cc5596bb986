import { InputError, errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { TurnResult } from '../core/turn.ts';
import type { AgentConfig } from '../config/load.ts';
import { processSqsBatch, type BatchOptions } from './batch.ts';
import { TURN_REQUESTED } from '../core/event-names.ts';
import { hasRecords, isSqsRecord, SQS_EVENT_SOURCE, type SqsBatchResponse, type SqsRecord } from './aws-event-shapes.ts';
import { isJsonObject } from '../core/json.ts';
import { ms } from '../core/time.ts';
import { turnDeadlineWithin } from '../core/deadline.ts';
import { readTurnRequest, type TurnRequest } from './payload.ts';
import type { RedeliveryScheduler } from '../core/ports/redelivery.ts';
import { runAndAnnounce, type TurnRunner } from './run-turn.ts';
import { checkOwnerAllowed, senderOf } from './senders.ts';

/**
 * The worker starts no record with less than this (plus turn.reserveSeconds) left: enough for one
 * model round. A record not started is redelivered, which beats a turn that stops at once.
 */
export const WORKER_START_MARGIN_MS = 10_000;

/** The part of Lambda's context the worker reads. */
interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

export interface QueueWorkerOptions extends TurnRunner {
  logger: Logger;
  config: Pick<AgentConfig, 'http' | 'turn' | 'logging'>;
  /** Defaults to WORKER_START_MARGIN_MS + turn.reserveSeconds. */
  startMarginMs?: number;
  redelivery?: RedeliveryScheduler<SqsRecord>;
  /**
   * The senders trusted to name an `owner`: event sources, `queue`, `invoke` (OWNER_SOURCES).
   * Default none: an asynchronous request never acts for a user unless the operator said so.
   */
  trustedSenders?: readonly string[];
  /** The queue only the stack's EventBridge rule sends to (EVENT_QUEUE_ARN). */
  eventQueueArn?: string;
  now?: () => number;
}

export type WorkerOutput = SqsBatchResponse | TurnResult;

/**
 * The asynchronous entry: an SQS batch gets a partial batch response; an EventBridge event (when a
 * rule targets the function directly) or a direct invoke runs its one turn and returns the turn
 * result, or throws, so the caller's retry policy applies.
 */
export function createQueueWorker(options: QueueWorkerOptions): (event: unknown, context: InvocationContext) => Promise<WorkerOutput> {
  const now = options.now ?? Date.now;
  const batchOptions: BatchOptions = {
    agent: options.agent,
    announcer: options.announcer,
    logger: options.logger,
    maxMessageChars: options.config.http.maxMessageChars,
    logPayloads: options.config.logging.logPayloads,
    startMarginMs: options.startMarginMs ?? WORKER_START_MARGIN_MS + ms(options.config.turn.reserveSeconds),
    ...(options.redelivery ? { redelivery: options.redelivery } : {}),
    trustedSenders: new Set(options.trustedSenders ?? []),
    ...(options.eventQueueArn ? { eventQueueArn: options.eventQueueArn } : {}),
    now,
  };

  return async (event, context) => {
    const deadlineAt = turnDeadlineWithin(now(), context.getRemainingTimeInMillis());
    if (hasRecords(event)) {
      const foreign = event.Records.find((record) => !isSqsRecord(record));
      if (foreign !== undefined) throw unsupportedRecords(foreign);
      return processSqsBatch(event.Records.filter(isSqsRecord), deadlineAt, batchOptions);
    }
    let request: TurnRequest;
    try {
      request = readTurnRequest(event, batchOptions.maxMessageChars);
      checkOwnerAllowed(request, senderOf('invoke', event), batchOptions.trustedSenders);
    } catch (error) {
      options.logger.error('invalid invocation payload', { code: error instanceof InputError ? error.code : 'invalid_payload', error: errorMessage(error) });
      throw error;
    }
    return runAndAnnounce(request, deadlineAt, batchOptions);
  };
}

/** S3, SNS, DynamoDB stream or Kinesis records: a wiring mistake in the stack, not a poison message. */
function unsupportedRecords(record: unknown): InputError {
  const source = isJsonObject(record) ? record.eventSource ?? record.EventSource : undefined;
  return new InputError('unsupported_event', `This function takes SQS records (eventSource "${SQS_EVENT_SOURCE}"), EventBridge "${TURN_REQUESTED}" events and direct invokes with {conversationId, message, requestId}; it got a record from ${JSON.stringify(source ?? 'an unknown source')}.`);
}
