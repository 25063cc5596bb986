import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import type { StreamPosition } from './stream-ids.ts';

/**
 * Where each event of a running turn stands, as the stored turn will show it (turn-replay.ts
 * rebuilds the same positions): undefined for events that get no id.
 *
 *   round-start           round-N
 *   tool-call             call-N-i, i its place among the round's calls
 *   tool-result           result-N-k once the results of the first k calls have all been sent;
 *                         none for a result that arrives before an earlier call's (calls run side by
 *                         side), nor for results of a round whose calls this stream did not announce
 *                         (a resumed turn's decided calls)
 *   deltas, pauses, extension events: none
 */
export function livePositions(): (event: LoopEvent) => StreamPosition | undefined {
  const rounds = new Map<number, { calls: string[]; results: Set<string>; sentThrough: number }>();
  return (event) => {
    switch (event.type) {
      case 'round-start':
        rounds.set(event.round, { calls: [], results: new Set(), sentThrough: 0 });
        return { kind: 'round', round: event.round };
      case 'tool-call': {
        const round = rounds.get(event.round);
        if (!round) return undefined;
        round.calls.push(event.call.id);
        return { kind: 'call', round: event.round, index: round.calls.length };
      }
      case 'tool-result': {
        const round = rounds.get(event.round);
        if (!round || !round.calls.includes(event.result.id)) return undefined;
        round.results.add(event.result.id);
        const before = round.sentThrough;
        while (round.sentThrough < round.calls.length && round.results.has(round.calls[round.sentThrough]!)) round.sentThrough++;
        return round.sentThrough > before ? { kind: 'result', round: event.round, index: round.sentThrough } : undefined;
      }
      default:
        return undefined;
    }
  };
}
