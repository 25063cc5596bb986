import type { ConversationState } from './ports.ts';

/**
 * A copy of the conversation's state that later changes to the live state do not reach. An
 * extension's value that is frozen is an immutable snapshot (the turn trace publishes one after
 * every model call: lib/agent/strategies/trace/book.ts) and is shared rather than copied, so
 * storing a round's record does not copy the whole trace again every round.
 */
export function copyState(state: ConversationState): ConversationState {
  const copy: ConversationState = {};
  for (const [name, value] of Object.entries(state)) copy[name] = Object.isFrozen(value) ? value : structuredClone(value);
  return copy;
}

/** Freezes a JSON value and everything in it (what is frozen already is taken as frozen all the way down). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
