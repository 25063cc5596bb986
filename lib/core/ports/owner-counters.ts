/** The budgets' per-owner counters: tokens per day, turns running at once. */
import type { StoreCallOptions } from './conversation-store.ts';

/**
 * The per-owner counters of the budgets (agent.yml `limits`), kept beside the conversations: the
 * tokens an owner used per UTC day, and the turns an owner runs at once as leased slots. An
 * `owner` of undefined is the unscoped space (no authentication), counted as one owner.
 */
export interface OwnerCounters {
  /** The owner's tokens on UTC day `day` (whole days since 1970-01-01); 0 when none were counted. */
  tokensOn(owner: string | undefined, day: number, options?: StoreCallOptions): Promise<number>;
  /**
   * Adds `tokens` to the owner's day and returns the day's total after it. `callId` identifies the
   * model call: the same call counted twice (a retried write) is counted once.
   */
  addTokens(owner: string | undefined, day: number, tokens: number, callId: string, options?: StoreCallOptions): Promise<number>;
  /**
   * Takes one of the owner's `slots` turn slots until the lease ends: a free one, or one whose lease
   * ended before `now` (its process died). Undefined when every slot is held.
   */
  acquireTurnSlot(owner: string, request: TurnSlotRequest, options?: StoreCallOptions): Promise<TurnSlot | undefined>;
  /**
   * Moves a slot's lease end to `leaseExpiresAt` while its holder still has it: a long turn keeps
   * its slot. Throws TurnTakenError when the slot is no longer the holder's.
   */
  renewTurnSlot(slot: TurnSlot, leaseExpiresAt: number, options?: StoreCallOptions): Promise<void>;
  /** Gives a slot back, if its holder still has it. */
  releaseTurnSlot(slot: TurnSlot, options?: StoreCallOptions): Promise<void>;
}

interface TurnSlotRequest {
  /** How many turns the owner may run at once. */
  slots: number;
  /** The request taking the slot (its claim id): only it may give the slot back. */
  holder: string;
  /** ms epoch: after this the slot is free again, whether or not it was given back. */
  leaseExpiresAt: number;
  now: number;
}

export interface TurnSlot {
  owner: string;
  index: number;
  holder: string;
}
