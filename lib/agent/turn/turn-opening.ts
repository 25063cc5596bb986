import type { TurnRecord } from '../../core/ports/conversation-store.ts';
import { requestReused } from './request-digest.ts';

/**
 * What a request finds when it opens a turn, decided from the conversation's newest turns (newest
 * first) without any database. Only the newest turn can be unfinished: opening a turn first
 * completes the one before it.
 *
 *   this request's turn is there:  made by another request (digest)   -> reused (422)
 *                                  complete, or paused and waiting   -> replay its result
 *                                  running, lease holds               -> busy (turn_in_progress)
 *                                  running past its lease, nothing
 *                                  recorded but its claim             -> take it over and run it
 *                                  running past its lease, expired    -> settle it, then replay
 *   the newest turn is running, lease holds                          -> busy (conversation_busy)
 *   the newest turn is running past its lease                        -> settle (interrupted), claim
 *   the newest turn is paused                                        -> settle (declined), claim
 *   otherwise                                                        -> claim newest + 1
 */
type Opening =
  | { kind: 'reused'; record: TurnRecord }
  | { kind: 'replay'; record: TurnRecord }
  | { kind: 'busy'; record: TurnRecord; ownRequest: boolean }
  | { kind: 'settle'; record: TurnRecord; how: SettleHow; then: 'replay' | 'claim' }
  | { kind: 'claim'; nextTurn: number }
  /** This request's own claim, whose holder is gone having recorded nothing: claimed anew, the question run. */
  | { kind: 'take-over'; record: TurnRecord };

/** Why an unfinished turn is completed by someone else: its process died, or its approvals will not come. */
export type SettleHow = 'interrupted' | 'new-message' | 'approval-expired';

/** `digest`: of this request (lib/agent/turn/request-digest.ts), compared with the one its id was stored with. */
export function decideOpening(recent: readonly TurnRecord[], requestId: string, now: number, digest?: string): Opening {
  const own = recent.find((record) => record.requestIds.includes(requestId));
  const newest = recent[0];
  if (own) {
    if (requestReused(own.requestDigests, requestId, digest)) return { kind: 'reused', record: own };
    if (own.status === 'complete') return { kind: 'replay', record: own };
    if (own.status === 'running') {
      if (leaseHolds(own, now)) return { kind: 'busy', record: own, ownRequest: true };
      // A claim that did nothing (its store failed before any round was recorded, and it could not
      // be given back): completing it as interrupted would answer the question with nothing done.
      return onlyClaimed(own) ? { kind: 'take-over', record: own } : { kind: 'settle', record: own, how: 'interrupted', then: 'replay' };
    }
    return approvalExpired(own, now) ? { kind: 'settle', record: own, how: 'approval-expired', then: 'replay' } : { kind: 'replay', record: own };
  }
  if (!newest) return { kind: 'claim', nextTurn: 1 };
  if (newest.status === 'running') {
    return leaseHolds(newest, now) ? { kind: 'busy', record: newest, ownRequest: false } : { kind: 'settle', record: newest, how: 'interrupted', then: 'claim' };
  }
  if (newest.status === 'paused') {
    return { kind: 'settle', record: newest, how: approvalExpired(newest, now) ? 'approval-expired' : 'new-message', then: 'claim' };
  }
  return { kind: 'claim', nextTurn: newest.turn + 1 };
}

/**
 * A running turn with nothing recorded but its claim: no round, no call, no reply. A call that may
 * change something is always recorded before it starts, so nothing with an effect ran for it (a
 * read-only call may have, which running the question again only repeats).
 */
function onlyClaimed(record: TurnRecord): boolean {
  const progress = record.result();
  // Its messages are the question (and a stateless caller's earlier messages): every record after the claim has rounds.
  return progress.rounds === 0 && progress.toolCalls.length === 0;
}

export const leaseHolds = (record: TurnRecord, now: number): boolean => (record.leaseExpiresAt ?? 0) > now;

export const approvalExpired = (record: TurnRecord, now: number): boolean =>
  record.approvalExpiresAt !== undefined && record.approvalExpiresAt <= now;

/**
 * How far to read: on while this request's turn is not found and the turns read stay within the
 * history budget (a retry is found among the newest turns, where a client's retry looks for it).
 */
export function readUntil(requestId: string, historyTokenBudget: number): (readSoFar: readonly TurnRecord[]) => boolean {
  // Stores ask after every turn they add to the same list: only the turns added since the last
  // question are looked at, or reading n turns would cost n² (a long conversation of short turns).
  let counted: readonly TurnRecord[] | undefined;
  let countedLength = 0;
  let tokens = 0;
  let found = false;
  return (readSoFar) => {
    if (readSoFar !== counted || readSoFar.length < countedLength) {
      counted = readSoFar;
      countedLength = 0;
      tokens = 0;
      found = false;
    }
    for (; countedLength < readSoFar.length; countedLength++) {
      const record = readSoFar[countedLength]!;
      found ||= record.requestIds.includes(requestId);
      tokens += record.tokens;
    }
    return !found && tokens <= historyTokenBudget;
  };
}
