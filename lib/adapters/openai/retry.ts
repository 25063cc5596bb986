/**
 * When a failed Chat Completions request is tried again, and after how long: the `openai` SDK's own
 * rules (its client.mjs `shouldRetry`, `retryRequest`, `calculateDefaultRetryTimeoutMillis`), kept
 * the same so that providers see the client they are used to.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { APIUserAbortError } from 'openai/core/error';

const INITIAL_DELAY_SECONDS = 0.5;
const MAX_DELAY_SECONDS = 8;
/** A server asking for a longer wait than this is not obeyed: the default backoff applies. */
const MAX_REQUESTED_DELAY_MS = 60_000;

/** 408 (timeout), 409 (lock), 429 (rate limit) and 5xx are retried, unless `x-should-retry` says otherwise. */
export function shouldRetry(response: Response): boolean {
  const told = response.headers.get('x-should-retry');
  if (told === 'true') return true;
  if (told === 'false') return false;
  return response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500;
}

/**
 * The wait before the next attempt: what the server asks (`retry-after-ms`, then `retry-after` in
 * seconds or as a date) when that is between 0 and 60 s; otherwise 0.5 s doubling with each retry
 * up to 8 s, less up to a quarter of jitter.
 */
export function retryDelayMs(headers: Headers | undefined, retriesRemaining: number, maxRetries: number): number {
  let requested: number | undefined;
  const milliseconds = headers?.get('retry-after-ms');
  if (milliseconds && !Number.isNaN(Number.parseFloat(milliseconds))) requested = Number.parseFloat(milliseconds);
  const after = headers?.get('retry-after');
  if (after && requested === undefined) {
    const seconds = Number.parseFloat(after);
    requested = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  if (requested !== undefined && Number.isFinite(requested) && requested >= 0 && requested <= MAX_REQUESTED_DELAY_MS) return requested;
  const retriesSoFar = maxRetries - retriesRemaining;
  const seconds = Math.min(INITIAL_DELAY_SECONDS * 2 ** retriesSoFar, MAX_DELAY_SECONDS);
  return seconds * (1 - Math.random() * 0.25) * 1000;
}

/** Waits, or ends as a cancelled call when the caller's signal aborts first. */
export async function waitForRetry(delayMs: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(delayMs, undefined, signal ? { signal } : {});
  } catch {
    throw new APIUserAbortError();
  }
}
