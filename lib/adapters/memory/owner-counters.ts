import { TurnTakenError } from '../../core/errors.ts';
import type { OwnerCounters, TurnSlot } from '../../core/ports/owner-counters.ts';

/**
 * OwnerCounters in memory: for embedding code, demos and tests, and for a store of your own that
 * is not DynamoDB. Same rules as the DynamoDB adapter (one contract checks both), but the counts
 * belong to this process: several processes each count on their own.
 */
export function createMemoryOwnerCounters(): OwnerCounters {
  /** owner → its latest day and that day's tokens (an older day is never read again). */
  const days = new Map<string, { day: number; tokens: number; lastCallId?: string }>();
  /** owner → slot index → holder and lease. */
  const slots = new Map<string, Map<number, { holder: string; leaseExpiresAt: number }>>();
  const ownerKey = (owner: string | undefined) => JSON.stringify(owner ?? null);

  // Each method changes its state before its first await, so concurrent calls are serialised
  // exactly as DynamoDB's conditional writes serialise them.
  return {
    async tokensOn(owner, day) {
      const counted = days.get(ownerKey(owner));
      return counted?.day === day ? counted.tokens : 0;
    },
    async addTokens(owner, day, tokens, callId) {
      const key = ownerKey(owner);
      let counted = days.get(key);
      if (counted === undefined || counted.day < day) days.set(key, (counted = { day, tokens: 0 }));
      // A late write for a day already over counts for nothing anyone will read.
      if (counted.day > day) return tokens;
      // As in DynamoDB: a write repeated right after itself (a retry) is counted once.
      if (counted.lastCallId !== callId) {
        counted.lastCallId = callId;
        counted.tokens += tokens;
      }
      return counted.tokens;
    },
    async acquireTurnSlot(owner, request) {
      const held = slots.get(owner) ?? new Map<number, { holder: string; leaseExpiresAt: number }>();
      slots.set(owner, held);
      for (let index = 0; index < request.slots; index++) {
        const current = held.get(index);
        if (current !== undefined && current.leaseExpiresAt >= request.now) continue;
        held.set(index, { holder: request.holder, leaseExpiresAt: request.leaseExpiresAt });
        return { owner, index, holder: request.holder } satisfies TurnSlot;
      }
      return undefined;
    },
    async renewTurnSlot(slot, leaseExpiresAt) {
      const current = slots.get(slot.owner)?.get(slot.index);
      if (current?.holder !== slot.holder) throw new TurnTakenError(`Turn slot ${slot.index} is no longer held by this turn.`, undefined);
      current.leaseExpiresAt = Math.max(current.leaseExpiresAt, leaseExpiresAt);
    },
    async releaseTurnSlot(slot) {
      const held = slots.get(slot.owner);
      if (held?.get(slot.index)?.holder === slot.holder) held.delete(slot.index);
      if (held?.size === 0) slots.delete(slot.owner);
    },
  };
}
