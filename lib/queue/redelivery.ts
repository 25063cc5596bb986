import type { RedeliveryRecord, RedeliveryScheduler } from '../core/ports/redelivery.ts';

/** Each failed record goes back through the scheduler of the queue it came from. */
export function redeliveryByQueue<Held extends RedeliveryRecord>(schedulers: ReadonlyMap<string, RedeliveryScheduler<Held>>, fallback: RedeliveryScheduler<Held>): RedeliveryScheduler<Held> {
  return {
    async scheduleRetry(records) {
      const byScheduler = new Map<RedeliveryScheduler<Held>, Held[]>();
      for (const record of records) {
        const scheduler = (record.eventSourceARN && schedulers.get(record.eventSourceARN)) || fallback;
        byScheduler.set(scheduler, [...(byScheduler.get(scheduler) ?? []), record]);
      }
      await Promise.all([...byScheduler].map(([scheduler, failed]) => scheduler.scheduleRetry(failed)));
    },
  };
}
