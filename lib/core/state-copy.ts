import type { ConversationState } from './ports/conversation-store.ts';

/**
 * A copy of the conversation's state that later changes to the live state do not reach. An
 * extension's value that is frozen is an immutable snapshot (the turn trace publishes one after
 * every model call: lib/extensions/trace/book.ts) and is shared rather than copied, so
 * storing a round's record does not copy the whole trace again every round.
 */
export function copyState(state: ConversationState): ConversationState {
  const copy: ConversationState = {};
  const names = Object.keys(state);
  for (let index = 0; index < names.length; index++) {
    const value = state[names[index]!]!;
    copy[names[index]!] = Object.isFrozen(value) ? value : copyJson(value);
  }
  return copy;
}

/**
 * A deep copy of a JSON value (plain objects, arrays, strings, numbers, booleans, null; a key whose
 * value is undefined is kept, as structuredClone keeps it). What the turn stores and reads back is
 * JSON, and this copies it several times faster than structuredClone, which pays for generality
 * (Dates, Maps, cycles) on every call: a round's record copies the turn's messages and state.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = copyJson(value[index]);
    return copy as T;
  }
  // Indexed loops rather than for…of: these copies run a few times per round, often before V8 has
  // optimized them, and an iterator costs there (a record's copy took a third longer).
  const copy: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) copy[keys[index]!] = copyJson((value as Record<string, unknown>)[keys[index]!]);
  return copy as T;
}

/**
 * Freezes every object in a JSON value (what is frozen already is taken as frozen all the way down).
 * Arrays are left as they are: in Node 22 a frozen array takes JSON.stringify to a slower path,
 * which can slow the whole value it is in (up to twice as slow when texts are short), and what is
 * frozen here is serialized again with every round's record. Their owner never changes them.
 */
export function freezeObjects<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  // Walked as copyJson walks it, without the array of values Object.values makes at every level.
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) freezeObjects(value[index]);
    return value;
  }
  if (Object.isFrozen(value)) return value;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) freezeObjects((value as Record<string, unknown>)[keys[index]!]);
  return Object.freeze(value);
}

/**
 * Freezes a JSON value all the way down, arrays too (a value frozen at its top is taken as frozen
 * all the way down): for what is kept and shared rather than copied, so that a change to it throws
 * instead of reaching every holder (the in-memory store's messages: lib/adapters/memory).
 */
export function freezeJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) freezeJson(value[index]);
  } else {
    const keys = Object.keys(value);
    for (let index = 0; index < keys.length; index++) freezeJson((value as Record<string, unknown>)[keys[index]!]);
  }
  return Object.freeze(value);
}
