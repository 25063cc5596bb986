import type { LoopEvent } from '../../agent/loop/loop-events.ts';

/**
 * The round numbers a client sees in a plan-execute turn. Each phase runs its own loop, and tasks
 * side by side count their rounds in ranges of their own (so that their bounds stay apart), which
 * would show a client the same number twice, or a number far past the turn's `rounds`. The chat page
 * keys a round's text by its number, so a repeated number draws one round's text into another's.
 * Here every round that starts takes the turn's next number, in the order rounds start; the events
 * of that round (its deltas, calls, results, a pause) carry the same number.
 */
export interface RoundNumbers {
  /** The events of one phase's loop, renumbered. Call once per loop. */
  phase(onEvent: (event: LoopEvent) => void): (event: LoopEvent) => void;
}

/** `last`: the number of the turn's last round so far (a resumed turn's rounds before the pause). */
export function roundNumbers(last: number): RoundNumbers {
  let next = last;
  return {
    phase(onEvent) {
      const numbers = new Map<number, number>();
      return (event) => {
        if (!('round' in event)) return onEvent(event);
        if (event.type === 'round-start') numbers.set(event.round, ++next);
        onEvent({ ...event, round: numbers.get(event.round) ?? event.round });
      };
    },
  };
}
