import type { LoopEvent } from '../../agent/loop/loop-events.ts';

/**
 * The text a client is streamed in a reflection turn. A round's text is the answer only if the
 * round calls no tool, which is known only when its reply has ended; and with a reflection strategy
 * that answer is a candidate, to be critiqued, revised, or outvoted. So each round's text is held
 * back until the round shows it was not the answer (it calls tools, or a later round starts) and then
 * sent; the candidate's text is never sent, and the strategy sends the final answer once it is
 * chosen. A client thus reads exactly what the turn's `reply` is, never a draft it cannot take back.
 */
export class HeldText {
  private readonly held = new Map<number, string[]>();
  private readonly onEvent: (event: LoopEvent) => void;

  constructor(onEvent: (event: LoopEvent) => void) {
    this.onEvent = onEvent;
  }

  /** The events of a loop, with its text held back. */
  readonly events = (event: LoopEvent): void => {
    if (event.type === 'text-delta') {
      const pieces = this.held.get(event.round) ?? [];
      pieces.push(event.text);
      this.held.set(event.round, pieces);
      return;
    }
    if (event.type === 'tool-call') this.flush((round) => round <= event.round);
    if (event.type === 'round-start') this.flush((round) => round < event.round);
    this.onEvent(event);
  };

  /** Sends what is held (the loop ended without an answer: its last words are no draft). */
  flushAll(): void {
    this.flush(() => true);
  }

  /** Forgets what is held: the candidate answer's text, which is sent only if it is chosen. */
  drop(): void {
    this.held.clear();
  }

  private flush(which: (round: number) => boolean): void {
    for (const [round, pieces] of [...this.held].sort(([left], [right]) => left - right)) {
      if (!which(round)) continue;
      this.held.delete(round);
      this.onEvent({ type: 'text-delta', round, text: pieces.join('') });
    }
  }
}
