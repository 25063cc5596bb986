import type { Agent } from '../agent/agent.ts';
import type { TurnResult } from '../core/turn.ts';
import type { TurnAnnouncer } from './announcer.ts';
import type { TurnRequest } from './payload.ts';

export interface TurnRunner {
  agent: Pick<Agent, 'ask'>;
  announcer: TurnAnnouncer;
}

/**
 * Runs (or, for a request already answered, replays) one turn and announces it. A turn that
 * stopped with `error` is stored, so it is a result like any other: announced, not retried.
 */
export async function runAndAnnounce(request: TurnRequest, deadlineAt: number, runner: TurnRunner): Promise<TurnResult> {
  const result = await runner.agent.ask({
    conversationId: request.conversationId,
    message: request.message,
    requestId: request.requestId,
    deadlineAt,
    ...(request.owner === undefined ? {} : { owner: request.owner }),
  });
  // A replayed turn is announced again on purpose: the earlier announcement may be the very thing
  // that failed. Consumers dedupe on requestId (at-least-once delivery).
  await runner.announcer.turnCompleted(result, request.requestId);
  return result;
}
