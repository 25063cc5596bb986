import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreError, TurnTakenError } from '../../lib/core/errors.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createLease } from '../../lib/agent/turn/lease.ts';

const START = Date.UTC(2025, 0, 1, 12, 0, 0);
const LEASE_MS = 30_000;

/** A claim that records the ends it was renewed to; `answer` decides each renewal's outcome. */
function claim(answer: () => Promise<void> = () => Promise.resolve()) {
  const renewals: number[] = [];
  return {
    renewals,
    claim: { what: 'turn claim', until: START + LEASE_MS, renew: (until: number) => (renewals.push(until), answer()) },
  };
}

describe('createLease', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const lease = (latestEnd = START + 3_600_000) => createLease({ durationMs: LEASE_MS, latestEnd, now: Date.now, logger: silentLogger });

  it('renews nothing while less than a third of the lease has passed', async () => {
    const { claim: held, renewals } = claim();
    const kept = lease().keep(held);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(renewals).toEqual([]);
    kept.release();
  });

  it('renews a third of the way through, to a whole lease from then, and again a third after that', async () => {
    const { claim: held, renewals } = claim();
    const kept = lease().keep(held);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renewals).toEqual([START + 10_000 + LEASE_MS]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renewals).toEqual([START + 10_000 + LEASE_MS, START + 20_000 + LEASE_MS]);
    kept.release();
  });

  it('sends no renewal when a write of the claim (a round record) carried the lease on', async () => {
    const { claim: held, renewals } = claim();
    const kept = lease().keep(held);
    await vi.advanceTimersByTimeAsync(8_000);
    kept.written(kept.end());
    await vi.advanceTimersByTimeAsync(9_000);
    expect(renewals).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals).toEqual([START + 18_000 + LEASE_MS]);
    kept.release();
  });

  it('makes no timer for each write of the claim, and still renews a third of a lease after the last one', async () => {
    const { claim: held, renewals } = claim();
    const kept = lease().keep(held);
    const timers = vi.spyOn(globalThis, 'setTimeout');
    for (let write = 1; write <= 10; write++) {
      await vi.advanceTimersByTimeAsync(100);
      kept.written(kept.end());
    }
    expect(timers).not.toHaveBeenCalled();
    // The last write, at +1 s, puts the renewal at +11 s: the timer set for +10 s waits again for the rest.
    await vi.advanceTimersByTimeAsync(9_999);
    expect(renewals).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(renewals).toEqual([START + 11_000 + LEASE_MS]);
    kept.release();
    timers.mockRestore();
  });

  it('renews sooner when a write carries an earlier end than the timer was set for (it raced a renewal)', async () => {
    const { claim: held, renewals } = claim();
    const kept = lease().keep(held);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renewals).toEqual([START + 10_000 + LEASE_MS]);
    // A write made before that renewal lands after it: the stored end is its own, 5 s short of the renewal's.
    await vi.advanceTimersByTimeAsync(2_000);
    kept.written(START + 5_000 + LEASE_MS);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(renewals).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(renewals).toEqual([START + 10_000 + LEASE_MS, START + 15_000 + LEASE_MS]);
    kept.release();
  });

  it('stops renewing once released: a stored or paused turn holds no lease', async () => {
    const { claim: held, renewals } = claim();
    lease().keep(held).release();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(renewals).toEqual([]);
  });

  it('never reaches past the deadline plus the margin', async () => {
    const { claim: held, renewals } = claim();
    const kept = lease(START + 45_000).keep(held);
    expect(kept.end()).toBe(START + LEASE_MS);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(renewals).toEqual([START + 40_000, START + 45_000]);
    kept.release();
  });

  it('tries a failed renewal again, and stops for good once the claim is lost', async () => {
    let outcome: Error | undefined = new StoreError('store_unavailable', 'DynamoDB did not answer');
    const { claim: held, renewals } = claim(() => (outcome ? Promise.reject(outcome) : Promise.resolve()));
    const kept = lease().keep(held);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renewals).toHaveLength(1);
    // Half of a third of the lease later, and not before.
    await vi.advanceTimersByTimeAsync(4_999);
    expect(renewals).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(renewals).toEqual([START + 10_000 + LEASE_MS, START + 15_000 + LEASE_MS]);
    outcome = new TurnTakenError('Turn 1 is no longer held by this request.', undefined);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(renewals).toHaveLength(3);
    const lost = renewals.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(renewals).toHaveLength(lost);
    kept.release();
  });
});
