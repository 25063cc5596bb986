import { selectTurnsWithinBudget } from '../../core/history.ts';
import type { TurnRecord } from '../../core/ports/conversation-store.ts';
import { copyJson } from '../../core/state-copy.ts';
import type { EarlierTurn, EarlierTurns } from '../extension-api/extension.ts';

/** Reads the conversation's turns again, newest first, while `wantsMore` says so (one Query). */
type ReadTurns = (wantsMore: (readSoFar: readonly TurnRecord[]) => boolean) => Promise<TurnRecord[]>;

/**
 * The earlier turns a turn opened with, for the extensions (EarlierTurns): the window, and older
 * turns on demand. The Query that opened the turn stopped soon after the history budget was met,
 * so older turns are first taken from what it read anyway, and only then read again, once.
 */
export function earlierTurns(completeNewestFirst: readonly TurnRecord[], budgetTokens: number, read: ReadTurns): EarlierTurns {
  const all = completeNewestFirst.map(asEarlier);
  const window = selectTurnsWithinBudget(all, budgetTokens);
  const known = all.slice(window.length);
  // The oldest turn read so far: nothing is older than turn 1.
  const oldestRead = completeNewestFirst.at(-1)?.turn ?? 1;
  let reread: Promise<EarlierTurn[]> | undefined;

  return {
    budgetTokens,
    window,
    async older(wantsMore) {
      const soFar: EarlierTurn[] = [];
      for (const turn of known) {
        soFar.push(turn);
        if (!wantsMore(soFar)) return soFar;
      }
      if (oldestRead <= 1) return soFar;
      const isOlder = (record: TurnRecord) => record.status === 'complete' && record.turn < oldestRead;
      reread ??= read((records) => wantsMore([...known, ...records.filter(isOlder).map(asEarlier)])).then((records) => records.filter(isOlder).map(asEarlier));
      for (const turn of await reread) {
        soFar.push(turn);
        if (!wantsMore(soFar)) break;
      }
      return soFar;
    },
  };
}

/** A record as an earlier turn, its messages decoded once. */
function asEarlier(record: TurnRecord): EarlierTurn {
  let messages: ReturnType<TurnRecord['messages']> | undefined;
  return {
    turn: record.turn,
    tokens: record.tokens,
    messages: () => copyJson((messages ??= record.messages())),
  };
}
