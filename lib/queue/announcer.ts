import type { Logger } from '../core/logger.ts';
import type { TurnAnnouncer } from '../core/ports/turn-announcer.ts';

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
