import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReconnectBackoff, retryDelayMs } from '../../lib/adapters/mcp/reconnect-backoff.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('retryDelayMs', () => {
  it('retries at once after a session broke, then 1 s, 2 s, 4 s, ... up to the maximum', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((failed) => retryDelayMs(failed, 30_000))).toEqual([0, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });
});

describe('ReconnectBackoff', () => {
  it('runs the attempt when it is due, and not again until told', () => {
    vi.useFakeTimers();
    const attempt = vi.fn();
    const backoff = new ReconnectBackoff(30_000, attempt);

    backoff.sessionBroke();
    vi.advanceTimersByTime(0);
    expect(attempt).toHaveBeenCalledTimes(1);

    backoff.attemptFailed();
    backoff.attemptFailed();
    expect(backoff.waitMs).toBe(2_000);
    vi.advanceTimersByTime(1_999);
    expect(attempt).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(attempt).toHaveBeenCalledTimes(2);

    backoff.succeeded();
    vi.advanceTimersByTime(60_000);
    expect(attempt).toHaveBeenCalledTimes(2);
  });

  it('drops a scheduled attempt when one starts on demand', () => {
    vi.useFakeTimers();
    const attempt = vi.fn();
    const backoff = new ReconnectBackoff(30_000, attempt);
    backoff.attemptFailed();

    backoff.cancel();
    vi.advanceTimersByTime(5_000);

    expect(attempt).not.toHaveBeenCalled();
  });
});
