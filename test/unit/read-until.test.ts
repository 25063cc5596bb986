/**
 * How far a turn's opening reads (readUntil): on while the request's own turn is not found and the
 * turns read stay within the history budget, however the store hands it the turns read so far
 * (one list it adds to, as both stores do, or a new list each time).
 */
import { describe, expect, it } from 'vitest';
import type { TurnRecord } from '../../lib/core/ports/conversation-store.ts';
import { readUntil } from '../../lib/agent/turn/turn-opening.ts';

const record = (turn: number, tokens: number, requestIds = [`request-${turn}`]): TurnRecord => ({
  turn,
  requestIds,
  claimId: `claim-${turn}`,
  status: 'complete',
  createdAt: new Date(0).toISOString(),
  tokens,
  messages: () => [],
  result: () => ({}) as never,
  state: () => ({}),
});

/** The answers of `wantsMore` as a store reads `records` one by one, adding each to `list(readSoFar)`. */
function answers(records: TurnRecord[], wantsMore: (readSoFar: readonly TurnRecord[]) => boolean, fresh: boolean): boolean[] {
  const read: TurnRecord[] = [];
  return records.map((next) => {
    read.push(next);
    return wantsMore(fresh ? [...read] : read);
  });
}

describe.each([false, true])('readUntil (a new list each time: %s)', (fresh) => {
  it('reads on while the turns read stay within the budget', () => {
    const records = [record(9, 40), record(8, 40), record(7, 30), record(6, 10)];

    expect(answers(records, readUntil('elsewhere', 100), fresh)).toEqual([true, true, false, false]);
  });

  it("stops at the request's own turn, whatever the budget left", () => {
    const records = [record(9, 1), record(8, 1, ['request-8', 'mine']), record(7, 1)];

    expect(answers(records, readUntil('mine', 1_000), fresh)).toEqual([true, false, false]);
  });

  it('counts again from the start when asked about a different, shorter list', () => {
    const wantsMore = readUntil('mine', 50);
    expect(wantsMore([record(9, 30), record(8, 30)])).toBe(false);
    expect(wantsMore([record(9, 30)])).toBe(true);
    expect(wantsMore([record(9, 1, ['mine'])])).toBe(false);
  });
});
