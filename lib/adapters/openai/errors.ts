/**
 * SDK errors → ModelError, once, at the adapter's boundary. The code says who must act: the operator
 * (auth, quota, rejected request), nobody but time (rate limit, unavailable), or the caller's budget
 * (timeout). A streamed call fails the same ways, plus two of its own: an error event in the middle
 * of the stream (Groq's `tool_use_failed`), and a connection that breaks off.
 *
 * Messages are the service's own words, with the HTTP status or the connection's error code: they
 * reach callers. What the provider said, and the endpoint's host, go in `detail`, which only the
 * log shows (a gateway's error text names its upstreams: "upstream http://10.0.0.5:8000").
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import { ModelError, errorMessage, type ModelErrorCode } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';
import { isQuotaExhausted, type ChatCompletionsClient } from './client.ts';

export function toModelError(error: unknown, client: ChatCompletionsClient, timedOut: boolean, timeoutMs: number | undefined): ModelError {
  if (error instanceof ModelError) return error;
  const status = error instanceof APIError ? statusOf(error) : undefined;
  if (error instanceof APIError && status !== undefined) return statusError(error, status, client);
  if (error instanceof APIConnectionTimeoutError || timedOut) {
    const limit = timeoutMs ?? client.timeout;
    return new ModelError('model_timeout', `The model did not answer within ${limit / 1000} s.`, {
      cause: error,
      timeout: true,
    });
  }
  if (error instanceof APIUserAbortError) {
    return new ModelError('model_aborted', 'The model call was cancelled before the model answered.', { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError('model_unavailable', `Could not connect to the model endpoint (${connectionCode(error)}).`, {
      cause: error,
      detail: `${endpointHost(client)}: ${connectionDetail(error)}`,
    });
  }
  // An error event inside a stream that names no status: the provider failed while answering.
  if (error instanceof APIError) {
    return new ModelError('model_unavailable', 'The model provider failed while streaming its reply.', { cause: error, detail: providerMessage(error) });
  }
  return new ModelError('model_bad_response', 'The model endpoint answered with something unusable.', { cause: error, detail: errorMessage(error) });
}

/** A stream that stopped mid-way for a reason other than an error event (the connection, bad JSON). */
export function brokenStreamError(error: unknown, client: ChatCompletionsClient): ModelError {
  if (error instanceof SyntaxError) {
    return new ModelError('model_bad_response', 'The model endpoint streamed something unusable (an event that is not JSON).', { cause: error, detail: error.message });
  }
  if (error instanceof APIError || error instanceof ModelError) return toModelError(error, client, false, undefined);
  return new ModelError('model_unavailable', `The connection to the model endpoint broke off while it streamed its reply (${causeCode(error) ?? 'connection lost'}).`, {
    cause: error,
    detail: `${endpointHost(client)}: ${errorMessage(error)}`,
  });
}

/**
 * The HTTP status, or for an error event inside a 200 stream the status it names
 * (`status_code`, Groq; an integer `code`, OpenRouter).
 */
function statusOf(error: APIError): number | undefined {
  if (typeof error.status === 'number') return error.status;
  const body: unknown = error.error;
  if (!isJsonObject(body)) return undefined;
  const named = [body['status_code'], body['status'], body['code']].find((value) => Number.isInteger(value) && (value as number) >= 400);
  return named as number | undefined;
}

function statusError(error: APIError, status: number, client: ChatCompletionsClient): ModelError {
  const said = `HTTP ${status}`;
  const wrap = (code: ModelErrorCode, message: string) => new ModelError(code, message, { cause: error, detail: `HTTP ${status}: ${providerMessage(error)}` });
  if (status === 429 && isQuotaExhausted(error.error)) {
    return wrap('model_quota_exceeded', `The model provider's quota for this API key is exhausted (${said}). Add credit or raise the limit.`);
  }
  if (status === 429) return wrap('model_rate_limited', `The model provider is still rate limiting after retries (${said}).`);
  if ((status === 401 || status === 403) && client.authentication === 'sigv4') {
    return wrap('model_auth_failed', `Bedrock refused the signed request (${said}). Check the AWS credentials, the region they sign for (model.region or AWS_REGION, the endpoint's), and the role's permission to invoke the model.`);
  }
  if (status === 401 || status === 403) {
    return wrap('model_auth_failed', `The model provider rejected the API key (${said}). Check OPENAI_API_KEY and its access to the model.`);
  }
  if (status >= 400 && status < 500) return wrap('model_rejected_request', `The model provider rejected the request (${said}); its message is in the service's log.`);
  return wrap('model_unavailable', `The model provider failed (${said}); its message is in the service's log.`);
}

/** The provider's own words: `{error: {message}}`, vLLM's top-level `{message}`, Gemini's `[{error}]`, or text. */
function providerMessage(error: APIError): string {
  const detail: unknown = Array.isArray(error.error) ? error.error[0] : error.error;
  const inner: unknown = isJsonObject(detail) && isJsonObject(detail['error']) ? detail['error'] : detail;
  const text =
    isJsonObject(inner) && typeof inner['message'] === 'string'
      ? inner['message']
      : typeof inner === 'string'
        ? inner
        : error.message.replace(/^\d{3}\s*/, '');
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 500 ? `${oneLine.slice(0, 500)}…` : oneLine || 'no error message';
}

/** The first `code` (ECONNREFUSED, ENOTFOUND…) in the fetch error's cause chain, or its message. */
function connectionDetail(error: APIConnectionError): string {
  return causeCode(error.cause) ?? errorMessage(error.cause ?? error);
}

/** The connection's error code, which names no host; the message of an error without one may. */
const connectionCode = (error: APIConnectionError): string => causeCode(error.cause) ?? 'connection error';

/** The `code` of an error or of the first cause that has one (undici's "terminated" ← UND_ERR_SOCKET). */
function causeCode(error: unknown): string | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && isJsonObject(cause); depth += 1, cause = cause['cause']) {
    if (typeof cause['code'] === 'string') return cause['code'];
  }
  return undefined;
}

function endpointHost(client: ChatCompletionsClient): string {
  try {
    return new URL(client.baseURL).host;
  } catch {
    return '(invalid base URL)';
  }
}

/** Providers sometimes quote the key back in a 401 message; it never leaves this adapter, not even in the log. */
export function redactKey(error: ModelError, apiKey: string | null): ModelError {
  if (!apiKey || apiKey.length < 8 || !`${error.message}${error.detail ?? ''}`.includes(apiKey)) return error;
  return new ModelError(error.code, error.message.replaceAll(apiKey, '[redacted]'), {
    cause: error.cause,
    timeout: error.timeout,
    ...(error.detail === undefined ? {} : { detail: error.detail.replaceAll(apiKey, '[redacted]') }),
  });
}
