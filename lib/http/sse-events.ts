import type { LoopEvent } from '../agent/loop/loop-events.ts';
import type { TurnResult } from '../core/turn.ts';
import type { HttpResponse } from './types.ts';

/**
 * What a streaming client receives for each loop event: the event's name and its JSON data; nothing
 * for `turn-start`, which the native stream leaves out (its `turn-end` names the conversation).
 */
export function loopEventData(event: LoopEvent): { name: string; data: Record<string, unknown> } | undefined {
  switch (event.type) {
    case 'turn-start':
      return undefined;
    case 'round-start':
      return { name: event.type, data: { round: event.round } };
    case 'text-delta':
    case 'reasoning-delta':
      return { name: event.type, data: { round: event.round, text: event.text } };
    case 'tool-call':
      return { name: event.type, data: { round: event.round, id: event.call.id, name: event.call.name, arguments: event.call.arguments } };
    case 'tool-progress': {
      const { type, ...data } = event;
      return { name: type, data };
    }
    case 'tool-result': {
      const { id, name, ok, durationMs } = event.result;
      return { name: event.type, data: { round: event.round, id, name, ok, durationMs, content: event.content } };
    }
    case 'approval-required':
      return { name: event.type, data: { round: event.round, pendingApprovals: event.pendingApprovals } };
    case 'elicitation-required':
      return { name: event.type, data: { round: event.round, pendingElicitations: event.pendingElicitations } };
    case 'reflection':
      return { name: event.type, data: { round: event.round, ...event.step } };
    case 'extension':
      return { name: event.name, data: event.data as Record<string, unknown> };
  }
}

/**
 * The last event of a stream: `turn-end` with the turn result (the JSON API's body), a stored turn
 * that ended with `error` included; or `error` with the JSON API's error body and the status it
 * would have answered with, when the turn failed without being stored.
 */
export function finalEventData(outcome: { result: TurnResult } | { failure: HttpResponse }): { name: 'turn-end' | 'error'; data: unknown } {
  if ('failure' in outcome) return errorEventData(outcome.failure);
  return { name: 'turn-end', data: outcome.result };
}

function errorEventData(response: HttpResponse): { name: 'error'; data: unknown } {
  return { name: 'error', data: { ...(JSON.parse(response.body) as Record<string, unknown>), status: response.statusCode } };
}
