/**
 * When a failed queue record comes back. Without this, SQS waits out the queue's visibility timeout
 * (six worker timeouts, 90 minutes) before a retry; a busy conversation is usually free again
 * within a minute or two. The wait doubles with each receive:
 *
 *   receive 1 → 60 s, 2 → 120 s, 3 → 240 s, 4 → 480 s, then 900 s (SQS allows up to 12 hours)
 *
 * so a record survives about 15 minutes of a busy conversation (the longest turn) before the
 * default maxReceiveCount of 5 moves it to the dead-letter queue.
 */
const REDELIVERY_BASE_SECONDS = 60;
const REDELIVERY_MAX_SECONDS = 900;

export function redeliveryDelaySeconds(receiveCount: number): number {
  const attempt = Number.isFinite(receiveCount) && receiveCount >= 1 ? Math.floor(receiveCount) : 1;
  return Math.min(REDELIVERY_MAX_SECONDS, REDELIVERY_BASE_SECONDS * 2 ** (attempt - 1));
}

/** What the scheduler reads of a failed record (an SQS message as Lambda delivers it). */
export interface RedeliveryRecord {
  /** Needed to change the record's visibility (its retry delay). */
  receiptHandle?: string;
  /** The queue the record came from. */
  eventSourceARN?: string;
  attributes?: { ApproximateReceiveCount?: string };
}

/**
 * Port: makes failed records visible again after their delay (SQS ChangeMessageVisibility). Typed by
 * the records its caller holds (the worker's are whole SQS records); it reads only RedeliveryRecord.
 */
export interface RedeliveryScheduler<Held extends RedeliveryRecord = RedeliveryRecord> {
  /** Never throws: on failure the records simply come back after the queue's visibility timeout. */
  scheduleRetry(records: readonly Held[]): Promise<void>;
}
