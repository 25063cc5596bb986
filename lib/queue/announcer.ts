import { AgentError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { TurnResult } from '../core/turn.ts';

/**
 * Tells the world a turn finished, or waits for approval. Delivery is at least once: a redelivered
 * request replays its stored turn and announces it again, so consumers dedupe on `requestId`.
 */
export interface TurnAnnouncer {
  /**
   * Throws when the announcement was not accepted; the caller retries the whole request. `owner`:
   * the user the turn acted for, when a trusted sender named one, so consumers can route the result.
   */
  announce(result: TurnResult, requestId: string, owner?: string): Promise<void>;
}

/** The event bus did not accept an announcement. */
export class AnnouncementError extends AgentError<'event_publish_failed'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('event_publish_failed', message, options);
  }
}

/** Local runs have no event bus: turns are stored but not announced, said once rather than per turn. */
export function createSkippingAnnouncer(logger: Logger): TurnAnnouncer {
  let told = false;
  return {
    async announce() {
      if (told) return;
      told = true;
      logger.info('EVENT_BUS_NAME is not set: finished turns are stored but not announced as AgentTurnCompleted (or AgentApprovalRequired) events');
    },
  };
}
