import { describe, expect, it } from 'vitest';
import { retryDelayMs, shouldRetry } from '../../lib/adapters/openai/retry.ts';

const response = (status: number, headers: Record<string, string> = {}) => new Response(null, { status, headers });

describe('shouldRetry', () => {
  it.each([408, 409, 429, 500, 502, 503, 504])('retries a %i', (status) => {
    expect(shouldRetry(response(status))).toBe(true);
  });

  it.each([400, 401, 403, 404, 422])('does not retry a %i', (status) => {
    expect(shouldRetry(response(status))).toBe(false);
  });

  it('obeys x-should-retry either way', () => {
    expect(shouldRetry(response(400, { 'x-should-retry': 'true' }))).toBe(true);
    expect(shouldRetry(response(503, { 'x-should-retry': 'false' }))).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('waits what retry-after-ms asks, before retry-after', () => {
    expect(retryDelayMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), 2, 2)).toBe(250);
  });

  it('reads retry-after in seconds, or as a date', () => {
    expect(retryDelayMs(new Headers({ 'retry-after': '3' }), 2, 2)).toBe(3_000);
    const date = new Date(Date.now() + 20_000).toUTCString();
    expect(retryDelayMs(new Headers({ 'retry-after': date }), 2, 2)).toBeGreaterThan(15_000);
  });

  it('backs off from 0.5 s, doubling up to 8 s, less up to a quarter, when the server asks nothing usable', () => {
    const delays = (retriesRemaining: number, headers?: Headers) => Array.from({ length: 50 }, () => retryDelayMs(headers, retriesRemaining, 6));
    const within = (values: number[], lowest: number, highest: number) => values.every((value) => value >= lowest && value <= highest);
    expect(within(delays(6), 375, 500)).toBe(true);
    expect(within(delays(5), 750, 1_000)).toBe(true);
    expect(within(delays(0), 6_000, 8_000)).toBe(true);
    // More than a minute, or negative: not obeyed.
    expect(within(delays(6, new Headers({ 'retry-after': '120' })), 375, 500)).toBe(true);
    expect(within(delays(6, new Headers({ 'retry-after-ms': '-5' })), 375, 500)).toBe(true);
  });
});
