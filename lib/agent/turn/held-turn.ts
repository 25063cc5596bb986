import { sharedDeadline, withDeadline } from '../../core/deadline.ts';
import { StoreError } from '../../core/errors.ts';
import { freezeJson } from '../../core/state-copy.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { ConversationKey, ConversationState, ConversationStore, TurnWrite } from '../../core/ports/conversation-store.ts';
import type { TurnResult } from '../../core/turn.ts';
import type { KeptClaim } from './lease.ts';
import { progressOf, type TurnDraft } from './turn-draft.ts';

/** A turn this request holds: it claimed it, or took over a paused turn to resume it. */
export interface HeldTurn {
  key: ConversationKey;
  turn: number;
  /** This invocation's own id: every write is conditional on the turn still being held by it. */
  claimId: string;
  requestIds: string[];
  /** Each request's digest, stored with every write: a requestId replays only to its own request. */
  requestDigests: Record<string, string>;
  createdAt: string;
  /** ms epoch: the lease its claim was written with (renewed while it runs: lib/agent/turn/lease.ts). */
  leaseExpiresAt: number;
}

/**
 * The writes of a held turn's life, each conditional on the turn still being held (running) by
 * this claim, and each ended (the client's own retries too) when the turn's time is up.
 */
export function heldTurnWrites(store: ConversationStore, held: HeldTurn, deadline: Deadline, state: () => ConversationState, lease?: Pick<KeptClaim, 'end' | 'written'>) {
  const expected = { claimId: held.claimId, status: 'running' as const };
  const base = () => ({ claimId: held.claimId, requestIds: held.requestIds, requestDigests: held.requestDigests, createdAt: held.createdAt, state: state() });
  // Each write is ended at the turn's deadline, or at a sooner one given for it (soonerDeadline).
  const update = (write: TurnWrite, within: Deadline) => within.bound((options) => store.update(held.key, held.turn, expected, write, options));
  return {
    /** The round record: what the turn did so far, before and after calls that may change something. */
    /** It carries the lease on (lib/agent/turn/lease.ts): a turn that records its rounds needs no renewal besides. */
    record: async (draft: TurnDraft, within = deadline) => {
      const leaseExpiresAt = lease?.end() ?? held.leaseExpiresAt;
      await update({ ...base(), status: 'running', leaseExpiresAt, messages: recorded(draft.messages), result: progressOf(draft) }, within);
      lease?.written(leaseExpiresAt);
    },
    pause: (messages: HistoryMessage[], result: TurnResult, approvalExpiresAt: number, within = deadline) =>
      update({ ...base(), status: 'paused', approvalExpiresAt, messages: recorded(messages), result }, within),
    complete: (messages: HistoryMessage[], result: TurnResult, completedAt: string, within = deadline) =>
      update({ ...base(), status: 'complete', completedAt, messages: recorded(messages), result }, within),
    /** Gives the claim back when the turn produced nothing worth keeping (nothing ran). */
    release: (within = deadline) => within.bound((options) => store.remove(held.key, held.turn, expected, options)),
  };
}

/** A turn's deadline as the store sees it: each store call is aborted if it still runs at that moment. */
export interface Deadline {
  at: number;
  /** Runs one store call with a signal that aborts it at the deadline (its timer ends with the call). */
  bound<T>(call: (options: { signal: AbortSignal }) => Promise<T>): Promise<T>;
}

/** The least time a store write that starts is given, however late. */
const STORE_LEAST_MS = 250;

/** The deadline, never less than a short moment away: a write that starts must get a chance. */
export function deadlineOf(at: number, now: () => number, leastMs = STORE_LEAST_MS): Deadline {
  return { at, bound: (call) => withDeadline(Math.max(leastMs, at - now()), (signal) => call({ signal })) };
}

/**
 * deadlineOf for the many writes of a turn under way (a round record before and after every round's
 * calls), with one timer between them (sharedDeadline): `end()` it when the turn's writes are done.
 */
export function turnDeadlineOf(at: number, now: () => number): Deadline & { end(): void } {
  const shared = sharedDeadline(at, now, STORE_LEAST_MS);
  return { at, bound: (call) => shared.run((signal) => call({ signal })), end: () => shared.end() };
}

/**
 * `deadline`, or `at` when that comes first: how long a request that has run nothing yet waits for
 * an unavailable store (conversation.unavailableWaitSeconds) before it answers 503.
 */
export function soonerDeadline(deadline: Deadline, at: number, now: () => number): Deadline {
  return at >= deadline.at ? deadline : deadlineOf(at, now);
}

/** The first write of a held turn (claimed, or a paused one taken over): running, with its draft so far and the conversation's state. */
export function claimWrite(held: HeldTurn, draft: TurnDraft, state: ConversationState): TurnWrite {
  return {
    status: 'running',
    claimId: held.claimId,
    requestIds: held.requestIds,
    requestDigests: held.requestDigests,
    createdAt: held.createdAt,
    leaseExpiresAt: held.leaseExpiresAt,
    messages: recorded(draft.messages),
    result: progressOf(draft),
    state,
  };
}

/**
 * A turn's messages as they are recorded, each frozen all the way down from then on: a recorded
 * message is what the model was sent and what a crashed turn is completed from, so it never changes
 * (the loop only appends after it, and a strategy that rearranges messages replaces them). Frozen,
 * it need not be copied by a store that keeps it (the in-memory store shares it: lib/adapters/memory);
 * already frozen, a message is passed over at once.
 */
function recorded(messages: HistoryMessage[]): HistoryMessage[] {
  for (let index = 0; index < messages.length; index++) freezeJson(messages[index]);
  return messages;
}

interface RetryOptions {
  /** Epoch ms: no attempt starts after this. */
  until: number;
  now: () => number;
  sleep?: (milliseconds: number) => Promise<void>;
}

const FIRST_PAUSE_MS = 200;
const LONGEST_PAUSE_MS = 2_000;

/**
 * Runs a store write again while the store is unavailable (each attempt already bounded by the
 * client's own timeout and retries), pausing longer each time, until `until`. A turn whose tools
 * ran must not give up on being stored while there is time left. A write that finds the turn taken
 * is not retried: it never will succeed.
 */
export async function untilStored<T>(write: () => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? ((milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds)));
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      const retryable = error instanceof StoreError && error.code === 'store_unavailable';
      if (!retryable || options.now() + pause >= options.until) throw error;
      await sleep(pause);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
