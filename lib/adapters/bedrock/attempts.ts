/**
 * One Converse or ConverseStream call, tried again on the OpenAI adapter's rules (retry.ts there:
 * which statuses, how long to wait, `retry-after` honoured), with one rule of streaming on top:
 *
 *   fails before any delta was handed out   retried (429, 408, 5xx, no connection, attempt timeout)
 *   fails after a delta was handed out      never retried: the watcher has seen text a new attempt
 *                                           would not repeat
 *   the caller's signal or the call's deadline ends it, never retried
 *
 * The client is built with the SDK's own retries off (client.ts), so these are the only ones.
 */
import { retryDelayMs, shouldRetry, waitForRetry } from '../openai/retry.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { isServiceError, statusOf } from './errors.ts';

interface AttemptOptions {
  maxRetries: number;
  /** One attempt's limit: a Converse answer, or the wait for a stream's next event. */
  attemptTimeoutMs: number;
  /** The caller's signal and the call's deadline, combined. */
  signal: AbortSignal | undefined;
  logger: Logger;
}

export interface Attempt {
  signal: AbortSignal;
  /** Restarts the attempt's timer: a stream that delivers events is not stalled. */
  stillAlive(): void;
  /** Marks that something was handed to the watcher: from now on a failure is final. */
  delivered(): void;
}

export class AttemptsFailed extends Error {
  readonly attempts: number;

  constructor(cause: unknown, attempts: number) {
    super(errorMessage(cause), { cause });
    this.attempts = attempts;
  }
}

export async function withAttempts<Result>(options: AttemptOptions, run: (attempt: Attempt) => Promise<Result>): Promise<{ result: Result; attempts: number }> {
  let delivered = false;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    const controller = new AbortController();
    let stalled = false;
    let timer: NodeJS.Timeout | undefined;
    const restartTimer = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = true;
        controller.abort(new DOMException(`no answer within ${options.attemptTimeoutMs} ms`, 'TimeoutError'));
      }, options.attemptTimeoutMs);
    };
    const abort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', abort, { once: true });
    restartTimer();
    try {
      const result = await run({ signal: controller.signal, stillAlive: restartTimer, delivered: () => (delivered = true) });
      return { result, attempts: attemptNumber };
    } catch (error) {
      const retriesRemaining = options.maxRetries - attemptNumber + 1;
      const retry = !delivered && retriesRemaining > 0 && options.signal?.aborted !== true && isRetried(error, stalled);
      if (!retry) throw new AttemptsFailed(stalled ? new StalledError(options.attemptTimeoutMs, error) : error, attemptNumber);
      options.logger.warn('model-call-retried', { attempt: attemptNumber, error: (error as Error).name, message: errorMessage(error) });
      await waitForRetry(retryDelayMs(headersOf(error), retriesRemaining, options.maxRetries), options.signal);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
    }
  }
}

/** An attempt that got no answer (or no next event) in time. */
export class StalledError extends Error {
  constructor(timeoutMs: number, cause: unknown) {
    super(`nothing arrived for ${timeoutMs / 1000} s`, { cause });
    this.name = 'StalledError';
  }
}

/**
 * Bedrock's answers by the OpenAI rules on their status (an exception inside a stream by the status
 * its kind has); a stalled attempt and a failed connection are retried; anything else (no
 * credentials, no region, a bug) would fail the same way again.
 */
function isRetried(error: unknown, stalled: boolean): boolean {
  if (stalled) return true;
  const status = statusOf(error);
  if (status !== undefined) return shouldRetry(new Response(null, { status, headers: headersOf(error) }));
  if (isServiceError(error)) return false;
  return hasConnectionCode(error);
}

/** The response's headers (`retry-after`…), without HTTP/2's pseudo-headers (`:status`), which `Headers` refuses. */
function headersOf(error: unknown): Headers | undefined {
  const headers = (error as { $response?: { headers?: Record<string, unknown> } } | undefined)?.$response?.headers;
  if (headers === undefined) return undefined;
  return new Headers(Object.entries(headers).filter((entry): entry is [string, string] => !entry[0].startsWith(':') && typeof entry[1] === 'string'));
}

function hasConnectionCode(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && typeof cause === 'object' && cause !== null; depth += 1, cause = (cause as { cause?: unknown }).cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z_]+|ERR_HTTP2_[A-Z_]+)$/.test(code)) return true;
  }
  return false;
}
