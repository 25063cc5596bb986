/**
 * The Chat Completions client for any OpenAI-compatible endpoint: one POST to `/chat/completions`,
 * plain or streamed, with the `openai` SDK's retry rules and its error classes and Server-Sent
 * Events decoder (`openai/core/error`, `openai/core/streaming`), but not its client class: that
 * class carries every OpenAI API (files, assistants, realtime, webhooks, workload identity ...),
 * about 380 KB of each Lambda bundle that a Chat Completions call never runs.
 *
 * Retries are the SDK's (retry.ts): 408, 409, 429, 5xx and network errors, exponential backoff,
 * `retry-after` / `retry-after-ms` honoured, with one change: a 429 that says the quota is
 * exhausted is final, since waiting does not refill it and each retry only delays the error the
 * operator has to see.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import { _iterSSEMessages } from 'openai/core/streaming';
import { ModelError, errorMessage } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';
import { retryDelayMs, shouldRetry, waitForRetry } from './retry.ts';
import type { RequestSigner } from './sigv4.ts';

interface OpenAIClientOptions {
  baseURL: string;
  /** Empty for local servers (Ollama, vLLM, LM Studio) that need no key. */
  apiKey: string;
  /**
   * Signs each attempt instead of sending the key (model.auth: sigv4, sigv4.ts): Bedrock's
   * OpenAI-compatible endpoints take AWS credentials, and no `Authorization: Bearer` goes out.
   */
  signer?: RequestSigner;
  maxRetries: number;
  /** Per HTTP attempt; the model adapter also bounds the whole call, retries included. */
  timeoutMs: number;
}

interface RequestOptions {
  /** Ends the call, retries and waits between them included. */
  signal?: AbortSignal;
  /** Per attempt, in place of the client's timeout. */
  timeout?: number;
}

export interface ChatCompletionsClient {
  readonly baseURL: string;
  /** The key sent as the bearer token (a placeholder when none is configured; empty when requests are signed). */
  readonly apiKey: string;
  /** How requests prove who sends them: the key, or a SigV4 signature (AWS credentials). */
  readonly authentication: 'key' | 'sigv4';
  /** Per attempt, milliseconds: up to the response's end, or for a stream up to its headers. */
  readonly timeout: number;
  readonly maxRetries: number;
  /** An unstreamed completion: the response body, parsed. */
  create(body: Record<string, unknown>, options?: RequestOptions): Promise<unknown>;
  /** A streamed completion (`stream: true` in the body): its chunks, once the response has begun. */
  stream(body: Record<string, unknown>, options?: RequestOptions): Promise<CompletionStream>;
}

/**
 * A streamed completion's parsed chunks. `done` turns true when the provider's `data: [DONE]`
 * arrived: a stream that simply ends may have been cut off (stream.ts decides with finish_reason).
 */
interface CompletionStream extends AsyncIterable<unknown> {
  readonly done: boolean;
}

/** Local servers ignore the key, but a request without one looks misconfigured to proxies. */
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

export function createOpenAIClient(options: OpenAIClientOptions): ChatCompletionsClient {
  const { signer } = options;
  const apiKey = signer ? '' : options.apiKey.trim() === '' ? PLACEHOLDER_API_KEY : options.apiKey;
  const url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const plainHeaders = { 'content-type': 'application/json', accept: 'application/json' };
  const keyHeaders = { ...plainHeaders, authorization: `Bearer ${apiKey}` };

  /** Each attempt's headers: the key's, or a signature made now (a retry's date is its own). */
  async function headersFor(body: string): Promise<Record<string, string>> {
    if (!signer) return keyHeaders;
    try {
      return await signer({ url, method: 'POST', headers: plainHeaders, body });
    } catch (error) {
      // Nothing to sign with (no credentials in the chain, an expired SSO session): the operator must act.
      throw new ModelError('model_auth_failed', 'No AWS credentials to sign the model request with (model.auth: sigv4). Give the function a role, or locally sign in (aws sso login, AWS_PROFILE) or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.', {
        cause: error,
        detail: errorMessage(error),
      });
    }
  }

  /**
   * One attempt after another until a response starts well, or the failure is final. The attempt's
   * controller aborts on the caller's signal and on the per-attempt timeout. The caller ends the
   * timer (`stopTimer`: a plain response is read under it, a stream only until its headers) and
   * stops following the signal (`settle`) once the response is read.
   */
  async function post(body: Record<string, unknown>, request: RequestOptions): Promise<Attempt> {
    const text = JSON.stringify(body);
    const { signal } = request;
    const timeout = request.timeout ?? options.timeoutMs;
    for (let retriesRemaining = Math.max(0, options.maxRetries); ; retriesRemaining -= 1) {
      if (signal?.aborted) throw new APIUserAbortError();
      const headers = await headersFor(text);
      if (signal?.aborted) throw new APIUserAbortError();
      const controller = new AbortController();
      const abort = () => controller.abort();
      signal?.addEventListener('abort', abort, { once: true });
      const timer = setTimeout(abort, timeout);
      const stopTimer = () => clearTimeout(timer);
      const settle = () => {
        stopTimer();
        signal?.removeEventListener('abort', abort);
      };
      let response: Response;
      try {
        response = await fetch(url, { method: 'POST', headers, body: text, signal: controller.signal });
      } catch (error) {
        settle();
        if (signal?.aborted) throw new APIUserAbortError();
        const timedOut = isTimeout(error);
        if (retriesRemaining > 0) {
          await waitForRetry(retryDelayMs(undefined, retriesRemaining, options.maxRetries), signal);
          continue;
        }
        if (timedOut) throw Object.assign(new APIConnectionTimeoutError(), { cause: error });
        throw new APIConnectionError({ message: 'Connection error.', cause: error as Error });
      }
      if (response.ok) return { response, controller, stopTimer, settle };
      const errorText = await response.text().catch((error: unknown) => String(error));
      settle();
      const errorBody = parseJson(errorText);
      const final = response.status === 429 && isQuotaExhausted(errorBody);
      if (retriesRemaining > 0 && !final && shouldRetry(response)) {
        await waitForRetry(retryDelayMs(response.headers, retriesRemaining, options.maxRetries), signal);
        continue;
      }
      // As the SDK shapes it: `error` is the body's `error` (or the whole body, an array too, when it has none).
      const hasNoError = typeof errorBody === 'object' && errorBody !== null && (errorBody as { error?: unknown }).error == null;
      const envelope = hasNoError ? { error: errorBody } : errorBody;
      throw APIError.generate(response.status, envelope as object | undefined, errorBody === undefined ? errorText : undefined, response.headers);
    }
  }

  return {
    baseURL: options.baseURL,
    apiKey,
    authentication: signer ? 'sigv4' : 'key',
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,

    async create(body, request = {}) {
      const { response, settle } = await post(body, request);
      try {
        const text = await response.text();
        // A JSON response that does not parse is a bad response (SyntaxError); any other body is passed on as text.
        return (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : parseJson(text) ?? text;
      } catch (error) {
        if (request.signal?.aborted) throw new APIUserAbortError();
        if (isTimeout(error)) throw Object.assign(new APIConnectionTimeoutError(), { cause: error });
        throw error;
      } finally {
        settle();
      }
    },

    async stream(body, request = {}) {
      const { response, controller, stopTimer, settle } = await post(body, request);
      // From here the reader bounds the wait for each chunk (stream.ts); the caller's signal still
      // ends the stream, through the attempt's controller, until the stream is done. (The SDK's
      // decoder ends a stream quietly when it is aborted: stream.ts checks the signal after it.)
      stopTimer();
      return completionStream(response, controller, settle);
    },
  };
}

interface Attempt {
  response: Response;
  controller: AbortController;
  stopTimer: () => void;
  settle: () => void;
}

/**
 * The chunks of a Server-Sent Events response, decoded by the SDK's own decoder, read as the SDK's
 * `Stream.fromSSEResponse` reads them (JSON data, `[DONE]` ends it, an `error` event or an `error`
 * field is an APIError), but saying whether `[DONE]` came, which the SDK's stream keeps to itself.
 * An abort ends it quietly, as the SDK's does: stream.ts checks the signals after the last chunk.
 */
function completionStream(response: Response, controller: AbortController, settle: () => void): CompletionStream {
  let done = false;
  let ended = false;
  async function* chunks(): AsyncGenerator<unknown> {
    try {
      for await (const message of _iterSSEMessages(response, controller)) {
        if (message.data === '[DONE]') {
          done = true;
          ended = true;
          return;
        }
        let data: unknown;
        try {
          data = JSON.parse(message.data);
        } catch {
          throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
        }
        const body = isJsonObject(data) ? data : undefined;
        if (message.event === 'error') throw new APIError(undefined, (body?.['error'] ?? data) as object, undefined, response.headers);
        if (body?.['error']) throw new APIError(undefined, body['error'] as object, undefined, response.headers);
        yield data;
      }
      ended = true;
    } catch (error) {
      if (controller.signal.aborted && !(error instanceof APIError)) return;
      throw error;
    } finally {
      // A reader that stops early, or an error, ends the request too.
      if (!ended) controller.abort();
      settle();
    }
  }
  const iterable = chunks();
  return {
    [Symbol.asyncIterator]: () => iterable,
    get done() {
      return done;
    },
  };
}

/** An aborted fetch (our timer) or a transport timeout (undici's own, named in its message or cause). */
function isTimeout(error: unknown): boolean {
  if (isJsonObject(error) && error['name'] === 'AbortError') return true;
  if (error instanceof Error && error.name === 'AbortError') return true;
  const cause = error instanceof Error ? error.cause : undefined;
  return /timed? ?out/i.test(`${String(error)}${cause === undefined ? '' : String(cause)}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
