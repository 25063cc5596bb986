import type { Logger } from '../core/logger.ts';
import type { TurnResult } from '../core/turn.ts';

/**
 * Tells the world a turn finished. Delivery is at least once: a redelivered request replays its
 * stored turn and announces it again, so consumers dedupe on `requestId`.
 */
export interface TurnAnnouncer {
  /** Throws when the announcement was not accepted; the caller retries the whole request. */
  turnCompleted(result: TurnResult, requestId: string): Promise<void>;
}

/** Local runs have no event bus: turns are stored but not announced, said once rather than per turn. */
export function createSkippingAnnouncer(logger: Logger): TurnAnnouncer {
  let told = false;
  return {
    async turnCompleted() {
      if (told) return;
      told = true;
      logger.info('EVENT_BUS_NAME is not set: finished turns are stored but not announced as AgentTurnCompleted events');
    },
  };
}
