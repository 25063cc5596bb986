import type { SqsRecord } from './aws-event-shapes.ts';

/**
 * When a failed record comes back. Without this, SQS waits out the queue's visibility timeout
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

/** Port: makes failed records visible again after their delay (SQS ChangeMessageVisibility). */
export interface RedeliveryScheduler {
  /** Never throws: on failure the records simply come back after the queue's visibility timeout. */
  scheduleRetry(records: readonly SqsRecord[]): Promise<void>;
}

/** Each failed record goes back through the scheduler of the queue it came from. */
export function redeliveryByQueue(schedulers: ReadonlyMap<string, RedeliveryScheduler>, fallback: RedeliveryScheduler): RedeliveryScheduler {
  return {
    async scheduleRetry(records) {
      const byScheduler = new Map<RedeliveryScheduler, SqsRecord[]>();
      for (const record of records) {
        const scheduler = (record.eventSourceARN && schedulers.get(record.eventSourceARN)) || fallback;
        byScheduler.set(scheduler, [...(byScheduler.get(scheduler) ?? []), record]);
      }
      await Promise.all([...byScheduler].map(([scheduler, failed]) => scheduler.scheduleRetry(failed)));
    },
  };
}
