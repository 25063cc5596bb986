import { TurnTakenError } from '../../lib/core/errors.ts';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OwnerCounters } from '../../lib/core/ports/owner-counters.ts';

const DAY = 20_000;
const NOW = Date.UTC(2024, 9, 4, 12);
const newOwner = () => `owner-${randomUUID()}`;

/**
 * What every OwnerCounters adapter must do, run against the in-memory one and DynamoDB (dynalite,
 * and DynamoDB Local when Java is there), so the budgets behave alike on all of them.
 */
export function ownerCountersContract(createCounters: () => OwnerCounters): void {
  describe('tokens per owner and day', () => {
    it('counts nothing for an owner never seen', async () => {
      expect(await createCounters().tokensOn(newOwner(), DAY)).toBe(0);
    });

    it('adds each call and returns the day’s total', async () => {
      const counters = createCounters();
      const owner = newOwner();
      expect(await counters.addTokens(owner, DAY, 120, 'call-1')).toBe(120);
      expect(await counters.addTokens(owner, DAY, 30, 'call-2')).toBe(150);
      expect(await counters.tokensOn(owner, DAY)).toBe(150);
    });

    it('counts a call written twice in a row (a retried write) once', async () => {
      const counters = createCounters();
      const owner = newOwner();
      await counters.addTokens(owner, DAY, 100, 'call-1');
      expect(await counters.addTokens(owner, DAY, 100, 'call-1')).toBe(100);
      expect(await counters.tokensOn(owner, DAY)).toBe(100);
    });

    it('starts every UTC day from zero', async () => {
      const counters = createCounters();
      const owner = newOwner();
      await counters.addTokens(owner, DAY, 500, 'call-1');
      expect(await counters.tokensOn(owner, DAY + 1)).toBe(0);
      expect(await counters.addTokens(owner, DAY + 1, 7, 'call-2')).toBe(7);
    });

    it('keeps owners apart, the unscoped space (no owner) and an owner named "-" included', async () => {
      const counters = createCounters();
      const owner = newOwner();
      await counters.addTokens(owner, DAY, 10, 'call-1');
      await counters.addTokens(undefined, DAY, 20, 'call-2');
      await counters.addTokens('-', DAY, 40, 'call-3');
      expect(await counters.tokensOn(owner, DAY)).toBe(10);
      expect(await counters.tokensOn(`${owner}x`, DAY)).toBe(0);
      expect(await counters.tokensOn(undefined, DAY)).toBeGreaterThanOrEqual(20);
      expect(await counters.tokensOn('-', DAY)).toBe(40);
    });

    it('loses no count when calls of one owner are counted at once', async () => {
      const counters = createCounters();
      const owner = newOwner();
      const totals = await Promise.all(Array.from({ length: 10 }, (_, index) => counters.addTokens(owner, DAY, 10, `call-${index}`)));
      expect(await counters.tokensOn(owner, DAY)).toBe(100);
      expect(Math.max(...totals)).toBe(100);
    });
  });

  describe('turn slots per owner', () => {
    const request = (holder: string, overrides: { slots?: number; leaseExpiresAt?: number; now?: number } = {}) => ({
      slots: overrides.slots ?? 2,
      holder,
      leaseExpiresAt: overrides.leaseExpiresAt ?? NOW + 60_000,
      now: overrides.now ?? NOW,
    });

    it('gives each holder its own slot until they are all held', async () => {
      const counters = createCounters();
      const owner = newOwner();
      const first = await counters.acquireTurnSlot(owner, request('turn-1'));
      const second = await counters.acquireTurnSlot(owner, request('turn-2'));
      expect(first).toMatchObject({ owner, holder: 'turn-1' });
      expect(second).toMatchObject({ owner, holder: 'turn-2' });
      expect(second!.index).not.toBe(first!.index);
      expect(await counters.acquireTurnSlot(owner, request('turn-3'))).toBeUndefined();
    });

    it('keeps owners apart: one owner at its limit does not hold up another', async () => {
      const counters = createCounters();
      const busy = newOwner();
      await counters.acquireTurnSlot(busy, request('turn-1', { slots: 1 }));
      expect(await counters.acquireTurnSlot(busy, request('turn-2', { slots: 1 }))).toBeUndefined();
      expect(await counters.acquireTurnSlot(newOwner(), request('turn-3', { slots: 1 }))).toBeDefined();
    });

    it('frees a slot given back, and only for its own holder', async () => {
      const counters = createCounters();
      const owner = newOwner();
      const slot = (await counters.acquireTurnSlot(owner, request('turn-1', { slots: 1 })))!;
      await counters.releaseTurnSlot({ ...slot, holder: 'someone-else' });
      expect(await counters.acquireTurnSlot(owner, request('turn-2', { slots: 1 }))).toBeUndefined();
      await counters.releaseTurnSlot(slot);
      expect(await counters.acquireTurnSlot(owner, request('turn-2', { slots: 1 }))).toMatchObject({ holder: 'turn-2' });
    });

    it('gives a slot whose lease ended (its process died) to the next holder, and the dead holder cannot free it', async () => {
      const counters = createCounters();
      const owner = newOwner();
      const dead = (await counters.acquireTurnSlot(owner, request('dead-turn', { slots: 1, leaseExpiresAt: NOW + 1_000 })))!;
      expect(await counters.acquireTurnSlot(owner, request('early', { slots: 1, now: NOW + 1_000 }))).toBeUndefined();
      const next = await counters.acquireTurnSlot(owner, request('next-turn', { slots: 1, now: NOW + 1_001, leaseExpiresAt: NOW + 90_000 }));
      expect(next).toMatchObject({ holder: 'next-turn' });
      await counters.releaseTurnSlot(dead);
      expect(await counters.acquireTurnSlot(owner, request('third', { slots: 1, now: NOW + 2_000 }))).toBeUndefined();
    });

    it('keeps a renewed slot past its first lease, and renews a slot only for its holder', async () => {
      const counters = createCounters();
      const owner = newOwner();
      const slot = (await counters.acquireTurnSlot(owner, request('long-turn', { slots: 1, leaseExpiresAt: NOW + 1_000 })))!;
      await counters.renewTurnSlot(slot, NOW + 30_000);
      expect(await counters.acquireTurnSlot(owner, request('next', { slots: 1, now: NOW + 20_000 }))).toBeUndefined();
      const taken = await counters.acquireTurnSlot(owner, request('after', { slots: 1, now: NOW + 30_001, leaseExpiresAt: NOW + 90_000 }));
      expect(taken).toMatchObject({ holder: 'after' });
      await expect(counters.renewTurnSlot(slot, NOW + 120_000)).rejects.toBeInstanceOf(TurnTakenError);
      expect(await counters.acquireTurnSlot(owner, request('third', { slots: 1, now: NOW + 60_000 }))).toBeUndefined();
    });

    it('gives out exactly as many slots as allowed to holders racing for them', async () => {
      const counters = createCounters();
      const owner = newOwner();
      const slots = await Promise.all(Array.from({ length: 7 }, (_, index) => counters.acquireTurnSlot(owner, request(`turn-${index}`, { slots: 3 }))));
      const taken = slots.filter((slot) => slot !== undefined);
      expect(taken).toHaveLength(3);
      expect(new Set(taken.map((slot) => slot.index)).size).toBe(3);
    });

    it('offers slots beyond a lowered limit to nobody', async () => {
      const counters = createCounters();
      const owner = newOwner();
      await counters.acquireTurnSlot(owner, request('turn-1', { slots: 1 }));
      expect(await counters.acquireTurnSlot(owner, request('turn-2', { slots: 1 }))).toBeUndefined();
      expect(await counters.acquireTurnSlot(owner, request('turn-2', { slots: 2 }))).toMatchObject({ index: 1 });
    });
  });
}
