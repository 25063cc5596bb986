/**
 * The AWS SDK's "standard" retries, as its DynamoDB client runs them today (@smithy/core's
 * StandardRetryStrategy with the 2026 settings and DynamoDB's own defaults), written out so that a
 * client without the SDK retries, backs off and runs dry exactly as the SDK's would:
 *
 *   retried     throttling (by error name, or HTTP 429) and transient faults (HTTP 500/502/503/504,
 *               timeouts, a connection refused, reset or lost, "Signature expired" or another
 *               failure after which the clock was corrected by minutes); never another 4xx
 *   attempts    4 in all for DynamoDB (AWS_MAX_ATTEMPTS, when set, instead)
 *   backoff     full jitter: random × min(base × 2^retries, 20 s); base 25 ms for DynamoDB, 1 s
 *               after throttling; a Retry-After the service sends lengthens it by up to 5 s
 *   quota       500 tokens per client; a retry costs 14 (5 after throttling); a success gives back
 *               what its last retry cost, or 1 when it needed none; an empty quota retries nothing
 *
 * `refundsRetry(error)` gives a retry's cost back when it failed with that error, as if it had
 * succeeded (lib/adapters/dynamodb/lean-documents.ts says why DynamoDB needs it).
 */

export type RetryErrorType = 'THROTTLING' | 'TRANSIENT' | 'SERVER_ERROR' | 'CLIENT_ERROR';

const INITIAL_RETRY_TOKENS = 500;
const RETRY_COST = 14;
const THROTTLING_RETRY_COST = 5;
const NO_RETRY_INCREMENT = 1;
const MAXIMUM_RETRY_DELAY_MS = 20_000;
const THROTTLING_DELAY_BASE_MS = 1_000;
const RETRY_AFTER_EXTRA_MS = 5_000;

const THROTTLING_ERROR_NAMES: ReadonlySet<string> = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);
const TRANSIENT_ERROR_NAMES: ReadonlySet<string> = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const TRANSIENT_STATUS_CODES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/** What a failed attempt said: an AWS error (name, status) or a transport failure. */
export interface AttemptFailure {
  error: unknown;
  /** The HTTP status, when an answer came. */
  status?: number;
  /** No answer: the connection failed or was lost, or the attempt timed out. */
  transport?: boolean;
  /** When the service asked to wait (Retry-After, x-amz-retry-after). */
  retryAfter?: Date;
  /** The answer's Date corrected the client's clock by minutes: the next attempt is signed right. */
  clockSkewCorrected?: boolean;
}

export function retryErrorType(failure: AttemptFailure): RetryErrorType {
  const name = failure.error instanceof Error ? failure.error.name : '';
  if (failure.status === 429 || THROTTLING_ERROR_NAMES.has(name)) return 'THROTTLING';
  if (name === 'AbortError') return 'CLIENT_ERROR';
  if (failure.clockSkewCorrected || (name === 'InvalidSignatureException' && (failure.error as Error).message.includes('Signature expired'))) return 'TRANSIENT';
  if (failure.transport || TRANSIENT_ERROR_NAMES.has(name) || TRANSIENT_STATUS_CODES.has(failure.status ?? 0)) return 'TRANSIENT';
  if (failure.status !== undefined && failure.status >= 500) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}

interface RetryQuotaOptions {
  maxAttempts: number;
  /** The delay base of a retry after anything but throttling (DynamoDB's is 25 ms). */
  baseDelayMs: number;
  refundsRetry?: (error: unknown) => boolean;
  /** Injectable for tests. */
  random?: () => number;
}

/** One request's place in the quota: how many retries it has made and what the last one cost. */
export interface RetryToken {
  readonly retries: number;
  readonly cost: number | undefined;
}

export interface RetryQuota {
  readonly maxAttempts: number;
  /** Tokens left (tests, and what the docs describe). */
  capacity(): number;
  firstAttempt(): RetryToken;
  /** The next attempt's token and how long to wait before it; undefined when there is none to make. */
  retry(token: RetryToken, failure: AttemptFailure): { token: RetryToken; delayMs: number } | undefined;
  succeeded(token: RetryToken): void;
}

export function createRetryQuota(options: RetryQuotaOptions): RetryQuota {
  const random = options.random ?? Math.random;
  let capacity = INITIAL_RETRY_TOKENS;
  const costOf = (type: RetryErrorType) => (type === 'THROTTLING' ? THROTTLING_RETRY_COST : RETRY_COST);
  const succeeded = (token: RetryToken) => {
    capacity = Math.min(INITIAL_RETRY_TOKENS, capacity + (token.cost ?? NO_RETRY_INCREMENT));
  };

  return {
    maxAttempts: options.maxAttempts,
    capacity: () => capacity,
    firstAttempt: () => ({ retries: 0, cost: undefined }),
    succeeded,
    retry(token, failure) {
      // A retry that reached the service and got a definite answer gives its cost back.
      if (token.retries > 0 && options.refundsRetry?.(failure.error)) succeeded(token);
      const type = retryErrorType(failure);
      const cost = costOf(type);
      if (type !== 'THROTTLING' && type !== 'TRANSIENT') return undefined;
      if (token.retries + 1 >= options.maxAttempts) return undefined;
      if (capacity < cost) return undefined;
      const base = type === 'THROTTLING' ? THROTTLING_DELAY_BASE_MS : options.baseDelayMs;
      const backoff = Math.floor(random() * Math.min(base * 2 ** token.retries, MAXIMUM_RETRY_DELAY_MS));
      const delayMs = failure.retryAfter
        ? Math.max(backoff, Math.min(failure.retryAfter.getTime() - Date.now(), backoff + RETRY_AFTER_EXTRA_MS))
        : backoff;
      capacity -= cost;
      return { token: { retries: token.retries + 1, cost }, delayMs };
    },
  };
}
