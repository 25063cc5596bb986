import { AgentError } from '../errors.ts';
import type { TurnResult } from '../turn.ts';

/**
 * Port: tells the world a turn finished, or waits for approval. Delivery is at least once: a
 * redelivered request replays its stored turn and announces it again, so consumers dedupe on
 * `requestId`. (The EventBridge adapter implements it; the queue worker calls it.)
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
