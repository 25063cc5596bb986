import { hash } from 'node:crypto';
import { condenseTurn } from '../../core/history.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { ConversationKey, ConversationStore } from '../../core/ports/conversation-store.ts';
import { traceMessages, type TraceContents } from './shape.ts';
import { type TraceMessage } from '../../core/turn-trace.ts';

/**
 * A turn's requests repeat the earlier turns' messages, which those turns' items already store:
 * the trace keeps only their count and digest, and where they sit in each request. Reading the
 * trace finds them again among the earlier turns as the history was built (whole turns, newest
 * first, and maybe the question and answer of the turn before them: lib/core/history.ts), and
 * shows them only when the digest matches, so what is shown is what was sent.
 */

export const historyDigest = (messages: readonly TraceMessage[]): string => hash('sha256', JSON.stringify(messages), 'hex');

/** Earlier turns read per request while looking for the history. */
const TURNS_PER_READ = 50;

/**
 * The history of turn `turn` as it was sent, read from the earlier turns; undefined when it cannot
 * be found any more (an earlier turn expired or was deleted).
 */
export async function readTraceHistory(
  store: ConversationStore,
  key: ConversationKey,
  turn: number,
  wanted: { messages: number; digest: string },
  contents: TraceContents,
): Promise<TraceMessage[] | undefined> {
  const newestFirst: HistoryMessage[][] = [];
  let count = 0;
  // Read backwards from the turn, a page at a time, until whole turns hold at least the history.
  for (let before = turn; before > 1 && count < wanted.messages; before = Math.max(1, before - TURNS_PER_READ)) {
    const after = Math.max(0, before - 1 - TURNS_PER_READ);
    const { records } = await store.readPage(key, { limit: before - 1 - after, ...(after > 0 ? { after } : {}) });
    for (const record of records.filter((candidate) => candidate.turn < before && candidate.status === 'complete').reverse()) {
      newestFirst.push(record.messages());
      count += newestFirst.at(-1)!.length;
    }
  }
  // The newest k whole turns, alone or after the condensed turn before them: the one whose digest matches.
  let whole: HistoryMessage[] = [];
  for (let k = 0; k <= newestFirst.length && whole.length <= wanted.messages; k++) {
    const candidates = [whole, ...(k < newestFirst.length ? [[...condenseTurn(newestFirst[k]!), ...whole]] : [])];
    for (const candidate of candidates) {
      if (candidate.length !== wanted.messages) continue;
      const shaped = traceMessages(candidate, contents);
      if (historyDigest(shaped) === wanted.digest) return shaped;
    }
    if (k < newestFirst.length) whole = [...newestFirst[k]!, ...whole];
  }
  return undefined;
}
