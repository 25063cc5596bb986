import type { Agent } from '../agent/agent-api.ts';
import type { TurnResult } from '../core/turn.ts';
import type { TurnAnnouncer } from '../core/ports/turn-announcer.ts';
import type { TurnRequest } from './payload.ts';

export interface TurnRunner {
  agent: Pick<Agent, 'ask' | 'decide'>;
  announcer: TurnAnnouncer;
}

/**
 * Runs (or, for a request already answered, replays) one turn, a question or decisions on a paused
 * turn, and announces it. A turn that stopped with `error` is stored, so it is a result like any
 * other: announced, not retried; so is a paused one (AgentApprovalRequired).
 */
export async function runAndAnnounce(request: TurnRequest, deadlineAt: number, runner: TurnRunner): Promise<TurnResult> {
  const base = { conversationId: request.conversationId, requestId: request.requestId, deadlineAt, ...(request.owner === undefined ? {} : { owner: request.owner }), ...(request.trace ? { trace: request.trace } : {}) };
  const result = request.decisions === undefined
    ? await runner.agent.ask({ ...base, message: request.message, ...(request.responseFormat ? { responseFormat: request.responseFormat } : {}) })
    : await runner.agent.decide({ ...base, decisions: request.decisions });
  // A replayed turn is announced again on purpose: the earlier announcement may be the very thing
  // that failed. Consumers dedupe on requestId (at-least-once delivery).
  await runner.announcer.announce(result, request.requestId, request.owner);
  return result;
}
