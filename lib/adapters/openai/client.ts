/**
 * The OpenAI SDK client for any OpenAI-compatible endpoint. Retries stay the SDK's own (429, 408,
 * 409, 5xx and network errors, exponential backoff, `retry-after` / `retry-after-ms` honoured) with
 * one change: a 429 that says the quota is exhausted is final, since waiting does not refill it and
 * each retry only delays the error the operator has to see.
 */
import OpenAI from 'openai';
import { isJsonObject } from '../../core/json.ts';

export interface OpenAIClientOptions {
  baseURL: string;
  /** Empty for local servers (Ollama, vLLM, LM Studio) that need no key. */
  apiKey: string;
  maxRetries: number;
  /** Per HTTP attempt; the model adapter also bounds the whole call, retries included. */
  timeoutMs: number;
}

/** Local servers ignore the key, but the SDK refuses to start without one. */
const PLACEHOLDER_API_KEY = 'no-api-key';

/** Error codes (or types) that mean "out of credit", as opposed to "too many requests right now". */
const QUOTA_ERROR_CODES = new Set(['insufficient_quota', 'credit_balance_exhausted']);

/**
 * True when a provider error says the account's quota or spend limit is used up. Accepts the whole
 * response body (`{"error": {...}}`) or the inner error object, as the SDK exposes it on `APIError.error`.
 */
export function isQuotaExhausted(errorBody: unknown): boolean {
  const envelope = isJsonObject(errorBody) && isJsonObject(errorBody['error']) ? errorBody['error'] : errorBody;
  if (!isJsonObject(envelope)) return false;
  return [envelope['code'], envelope['type']].some(
    (value) => typeof value === 'string' && (QUOTA_ERROR_CODES.has(value) || value.endsWith('_spend_limit_exceeded')),
  );
}


/** The SDK's hook deciding whether a failed response is retried. */
interface RetryDecision {
  shouldRetry(response: Response): Promise<boolean>;
}

/**
 * The SDK client with quota exhaustion made final. `shouldRetry` is the SDK's retry hook; its
 * type declarations mark it private, which TypeScript forbids overriding in a subclass body, so
 * the override is installed on the prototype below (the integration test proves it is called).
 */
export class QuotaAwareOpenAI extends OpenAI {}

const sdkShouldRetry = (OpenAI.prototype as unknown as Partial<RetryDecision>).shouldRetry;
if (typeof sdkShouldRetry !== 'function') {
  // Fail at cold start rather than silently retrying exhausted quotas after an SDK upgrade.
  throw new Error('The installed openai package no longer has OpenAI.prototype.shouldRetry; update lib/adapters/openai/client.ts.');
}

(QuotaAwareOpenAI.prototype as unknown as RetryDecision).shouldRetry = async function shouldRetry(
  this: OpenAI,
  response: Response,
): Promise<boolean> {
  // Read a clone: the SDK reads the original body itself to build the error it throws.
  if (response.status === 429 && isQuotaExhausted(await readJson(response.clone()))) return false;
  return sdkShouldRetry.call(this, response);
};

async function readJson(response: Response): Promise<unknown> {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

export function createOpenAIClient(options: OpenAIClientOptions): OpenAI {
  return new QuotaAwareOpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey.trim() === '' ? PLACEHOLDER_API_KEY : options.apiKey,
    maxRetries: options.maxRetries,
    timeout: options.timeoutMs,
  });
}
