import { ConflictError, InputError, TurnTakenError } from '../../core/errors.ts';
import { historyMessages } from '../../core/history.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { ConversationKey, ConversationState, ConversationStore, StoreCallOptions, TurnRecord } from '../../core/ports/conversation-store.ts';
import type { TurnResult } from '../../core/turn.ts';
import { earlierTurns } from './earlier-turns.ts';
import type { EarlierTurns } from '../extension-api/extension.ts';
import { claimWrite, soonerDeadline, untilStored, type Deadline, type HeldTurn } from './held-turn.ts';
import { settleDeclined, settleInterrupted, type SettledTurn } from './settle-turn.ts';
import { formatSeconds, toolText } from '../loop/tool-messages.ts';
import { decideOpening, readUntil, type SettleHow } from './turn-opening.ts';
import type { TurnDraft } from './turn-draft.ts';

export interface TurnRules {
  maxRounds: number;
  historyTokenBudget: number;
  approvalTtlSeconds: number;
}

interface OpenTurnInput {
  store: ConversationStore;
  key: ConversationKey;
  requestId: string;
  /** The digest of this request (its message, instructions, earlier messages): its requestId replays only to it. */
  requestDigest: string;
  claimId: string;
  /** The new turn's draft: its question. */
  draft: TurnDraft;
  now: number;
  leaseExpiresAt: number;
  /** Each store request is tried again while the store is unavailable, until then; and ends by then. */
  deadline: Deadline;
  /** Epoch ms: opening the turn (nothing has run yet) waits for an unavailable store until then at most. */
  waitForStoreUntil?: number;
  clock: () => number;
  rules: TurnRules;
  /** Refuses the new turn (throws) from the conversation's state before it is claimed: a spent budget. */
  admit?: (state: ConversationState) => void;
  /**
   * The conversation id was made for this request (no conversationId was sent): it has no turn
   * unless this request was sent before (an id derived from its requestId) or races itself.
   */
  newConversation?: boolean;
}

type OpenedTurn =
  | { kind: 'replay'; result: TurnResult }
  /** `state`: the conversation's, as its newest turn left it; `earlier`: its turns, for the extensions. */
  | { kind: 'claimed'; held: HeldTurn; history: HistoryMessage[]; state: ConversationState; earlier: EarlierTurns };

/**
 * Reads the conversation's newest turns (one Query), then replays this request's turn, refuses
 * while another runs, or claims the next turn (one conditional write), first completing an
 * unfinished turn before it (one more write, only then). A conversation made for this request
 * claims its turn 1 without the read, which only a taken turn 1 sends it to.
 */
export async function openTurn(input: OpenTurnInput): Promise<OpenedTurn> {
  const { store, key, requestId, rules } = input;
  const retried = storeRetries(openingDeadline(input), input.clock);
  if (input.newConversation) {
    // Turn 1 claimed without reading first (one request less on every new conversation); when it is
    // taken, this request was sent before or races itself, and the read below decides as always.
    const first = await claimTurn(input, retried, { nextTurn: 1 }, [], true);
    if (first) return first;
  }
  const recent = await retried((options) => store.readRecent(key, readUntil(requestId, rules.historyTokenBudget), options));
  const opening = decideOpening(recent, requestId, input.now, input.requestDigest);
  if (opening.kind === 'reused') throw requestIdReused(requestId, 'message');
  if (opening.kind === 'replay') return { kind: 'replay', result: opening.record.result() as TurnResult };
  if (opening.kind === 'busy') throw busy(opening.record, opening.ownRequest, requestId, input.now);

  let complete = recent.filter((record) => record.status === 'complete');
  let nextTurn = opening.kind === 'claim' ? opening.nextTurn : opening.kind === 'take-over' ? opening.record.turn : opening.record.turn + 1;
  if (opening.kind === 'settle') {
    const settled = await retried((options) => settleTurn(store, key, opening.record, opening.how, input.claimId, new Date(input.now).toISOString(), rules, options));
    if (opening.then === 'replay') return { kind: 'replay', result: settled.result };
    complete = [asComplete(opening.record, settled), ...complete];
    nextTurn = opening.record.turn + 1;
  }
  const taken = opening.kind === 'take-over' ? opening.record : undefined;
  return (await claimTurn(input, retried, { nextTurn, ...(taken ? { taken } : {}) }, complete, false))!;
}

/**
 * Claims `nextTurn` (one conditional write) with the history and state of the complete turns read.
 * Another claim of the same number is a conflict, or, for a first claim made without reading
 * (`unread`), undefined: the caller reads and decides.
 */
async function claimTurn(
  input: OpenTurnInput,
  retried: ReturnType<typeof storeRetries>,
  next: { nextTurn: number; taken?: TurnRecord },
  complete: TurnRecord[],
  unread: boolean,
): Promise<OpenedTurn | undefined> {
  const { store, key, requestId, rules } = input;
  const { nextTurn, taken } = next;
  const held: HeldTurn = {
    key,
    turn: nextTurn,
    claimId: input.claimId,
    // A turn taken over keeps the request ids it was claimed for.
    requestIds: taken ? taken.requestIds : [requestId],
    requestDigests: { [requestId]: input.requestDigest },
    createdAt: new Date(input.now).toISOString(),
    leaseExpiresAt: input.leaseExpiresAt,
  };
  // Decided (and decoded) before claiming, so an unreadable turn cannot leave a claim behind.
  const history = historyMessages(complete, rules.historyTokenBudget);
  const state = complete[0]?.state() ?? {};
  input.admit?.(state);
  try {
    const claim = claimWrite(held, input.draft, state);
    // This request's own claim that did nothing is claimed anew in place, conditional on it being as read.
    await retried((options) => (taken ? store.update(key, nextTurn, { claimId: taken.claimId, status: 'running' }, claim, options) : store.create(key, nextTurn, claim, options)));
  } catch (error) {
    if (!(error instanceof TurnTakenError)) throw error;
    if (unread) return undefined;
    // Another request claimed this turn number since the read (or this very request, racing itself).
    const ownRequest = error.current?.requestIds.includes(requestId) ?? false;
    throw conflict(ownRequest, requestId, nextTurn, error.current?.leaseExpiresAt, input.now, error);
  }
  const earlier = earlierTurns(complete, rules.historyTokenBudget, (wantsMore) => storeRetries(input.deadline, input.clock)((options) => store.readRecent(key, wantsMore, options)));
  return { kind: 'claimed', held, history, state, earlier };
}

/** The deadline of opening a turn: its own, or sooner, while nothing has run (see waitForStoreUntil). */
export function openingDeadline(input: { deadline: Deadline; waitForStoreUntil?: number; clock: () => number }): Deadline {
  return input.waitForStoreUntil === undefined ? input.deadline : soonerDeadline(input.deadline, input.waitForStoreUntil, input.clock);
}

/**
 * Runs store calls again while the store is unavailable, until the deadline (each attempt ended by
 * it too): a few seconds of throttling must not turn into a 503 with the whole turn's time left.
 */
export function storeRetries(deadline: Deadline, now: () => number) {
  return <T>(call: (options: StoreCallOptions) => Promise<T>): Promise<T> => untilStored(() => deadline.bound(call), { until: deadline.at, now });
}

/**
 * Completes an unfinished turn that is not this request's to run: interrupted (its process died),
 * or declined (a new message, or expired approvals). Conditional on the turn being as read: if it
 * changed meanwhile, the caller is told to retry.
 */
export async function settleTurn(
  store: ConversationStore,
  key: ConversationKey,
  record: TurnRecord,
  how: SettleHow,
  claimId: string,
  completedAt: string,
  rules: TurnRules,
  options: StoreCallOptions = {},
): Promise<SettledTurn> {
  const settled = settledTurn(record, how, key.conversationId, rules);
  try {
    await store.update(key, record.turn, { claimId: record.claimId, status: record.status }, {
      status: 'complete',
      claimId,
      requestIds: record.requestIds,
      ...(record.requestDigests ? { requestDigests: record.requestDigests } : {}),
      createdAt: record.createdAt,
      completedAt,
      messages: settled.messages,
      result: settled.result,
      state: record.state(),
    }, options);
  } catch (error) {
    if (!(error instanceof TurnTakenError)) throw error;
    throw new ConflictError('conversation_busy', `Turn ${record.turn} of this conversation changed while this request was completing it; retry the request.`, { cause: error, retryAfterSeconds: 1 });
  }
  return settled;
}

export function settledTurn(record: TurnRecord, how: SettleHow, conversationId: string, rules: TurnRules): SettledTurn {
  switch (how) {
    case 'interrupted':
      return settleInterrupted(record, conversationId, rules.maxRounds);
    case 'new-message':
      return settleDeclined(record, conversationId, (waitedFor) => ({
        approval: toolText.declinedForNewMessage(),
        answer: toolText.questionUnanswered('a new message came instead of an answer'),
        sampling: toolText.samplingNotApproved('a new message came instead of an approval'),
      })[waitedFor], 'A new message arrived instead of a decision, so the calls waiting for one were declined:');
    case 'approval-expired':
      return settleDeclined(record, conversationId, (waitedFor) => ({
        approval: toolText.approvalExpired(rules.approvalTtlSeconds),
        answer: toolText.questionUnanswered(`nobody answered within ${formatSeconds(rules.approvalTtlSeconds * 1000)}`),
        sampling: toolText.samplingNotApproved(`nobody approved it within ${formatSeconds(rules.approvalTtlSeconds * 1000)}`),
      })[waitedFor], 'Nobody decided on the calls waiting for a decision in time, so they were declined:');
  }
}

/** A settled record as the history sees it: complete, with its settled messages. */
function asComplete(record: TurnRecord, settled: SettledTurn): TurnRecord {
  return { ...record, status: 'complete', messages: () => settled.messages, result: () => settled.result };
}

/**
 * 422: the requestId was used for another request. Says nothing of that request's turn or its
 * conversation: the caller may be someone who guessed the id.
 */
export function requestIdReused(requestId: string, what: 'message' | 'decisions'): InputError {
  return new InputError(
    'request_id_reused',
    `The requestId "${requestId}" was already used for a different request (another message, other decisions, or another kind of request). A requestId names one request: send a new requestId for a new ${what === 'message' ? 'message' : 'decision'}, or resend exactly the same request to get its result.`,
  );
}

function busy(record: TurnRecord, ownRequest: boolean, requestId: string, now: number): ConflictError {
  return conflict(ownRequest, requestId, record.turn, record.leaseExpiresAt, now);
}

function conflict(ownRequest: boolean, requestId: string, turn: number, leaseExpiresAt: number | undefined, now: number, cause?: unknown): ConflictError {
  const seconds = Math.max(1, Math.ceil(((leaseExpiresAt ?? now) - now) / 1000));
  if (ownRequest) {
    return new ConflictError('turn_in_progress', `Request ${requestId} is still running as turn ${turn}; retry after ${seconds} s to get its result.`, { cause, retryAfterSeconds: seconds });
  }
  return new ConflictError(
    'conversation_busy',
    `Another request is running turn ${turn} of this conversation. Retry after ${seconds} s, when its claim ends unless its process, still running, renews it; if its process stopped, the turn is then completed as interrupted and the conversation is free.`,
    { cause, retryAfterSeconds: seconds },
  );
}
