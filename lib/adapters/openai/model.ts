/**
 * `ModelClient` on the OpenAI SDK: one non-streaming Chat Completions call per round. Requests are
 * built by wire.ts, replies normalized by normalize.ts, and every failure is wrapped once into a
 * `ModelError` whose code says who must act.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { ModelError, errorMessage, type ModelErrorCode } from '../../core/errors.ts';
import { silentLogger, type Logger } from '../../core/logger.ts';
import type { ModelClient, ModelReply, ModelRequest } from '../../core/ports.ts';
import { isQuotaExhausted } from './client.ts';
import { normalizeCompletion } from './normalize.ts';
import { withTextToolCalls } from './text-tool-calls.ts';
import { toWireMessages, toWireTools } from './wire.ts';
import { isJsonObject } from '../../core/json.ts';

export interface OpenAIModelOptions {
  client: OpenAI;
  model: string;
  temperature: number;
  /** Sent as `max_tokens` only when set: some models (OpenAI reasoning models) reject it. */
  maxTokens?: number;
  /** Read tool calls a server wrote into `content` (model.textToolCalls in agent.yml). */
  textToolCalls?: boolean;
  logger?: Logger;
}

export function createOpenAIModel(options: OpenAIModelOptions): ModelClient {
  const logger = options.logger ?? silentLogger;
  return {
    async complete(request: ModelRequest): Promise<ModelReply> {
      const startedAt = Date.now();
      // The SDK's `timeout` bounds one HTTP attempt; this signal bounds the call, retries included.
      const deadline = request.timeoutMs === undefined ? undefined : AbortSignal.timeout(request.timeoutMs);
      const signals = [request.signal, deadline].filter((signal) => signal !== undefined);
      try {
        const body: unknown = await options.client.chat.completions.create(requestBody(options, request), {
          ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
          ...(request.timeoutMs === undefined ? {} : { timeout: request.timeoutMs }),
        });
        // The SDK hands back the parsed JSON untouched, so fields its types omit (reasoning_content,
        // object arguments) still reach the normalizer.
        const normalized = normalizeCompletion(body);
        const reply = options.textToolCalls ? withTextToolCalls(normalized, request.tools) : normalized;
        logger.debug('model-call-completed', {
          model: options.model,
          durationMs: Date.now() - startedAt,
          toolCalls: reply.toolCalls.length,
          ...reply.usage,
        });
        return reply;
      } catch (error) {
        const timedOut = (deadline?.aborted ?? false) || isTimeoutAbort(request.signal);
        const modelError = redactKey(toModelError(error, options.client, timedOut, request.timeoutMs), options.client.apiKey);
        logger.warn('model-call-failed', { model: options.model, code: modelError.code, message: modelError.message });
        throw modelError;
      }
    },
  };
}

/** Shaped like the original request: model, messages, tools, tool_choice, temperature, stream. */
function requestBody(options: OpenAIModelOptions, request: ModelRequest): ChatCompletionCreateParamsNonStreaming {
  const hasTools = request.tools.length > 0;
  return {
    model: options.model,
    // Wire messages also carry what the SDK's types omit: `name` on tool messages, echoed reasoning.
    messages: toWireMessages(request.messages),
    // Providers reject `tool_choice` without tools, so both go or neither.
    ...(hasTools ? { tools: toWireTools(request.tools), tool_choice: 'auto' as const } : {}),
    temperature: options.temperature,
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
    stream: false,
  };
}

/** A caller's signal from `AbortSignal.timeout` (reason TimeoutError) is a timeout, not a cancellation. */
const isTimeoutAbort = (signal: AbortSignal | undefined): boolean =>
  signal?.aborted === true && signal.reason instanceof Error && signal.reason.name === 'TimeoutError';

/**
 * SDK error → ModelError. The code says who must act: the operator (auth, quota, rejected request),
 * nobody but time (rate limit, unavailable), or the caller's budget (timeout).
 */
function toModelError(error: unknown, client: OpenAI, timedOut: boolean, timeoutMs: number | undefined): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof APIError && typeof error.status === 'number') return statusError(error, error.status);
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
    return new ModelError(
      'model_unavailable',
      `Could not connect to the model endpoint ${endpointHost(client)} (${connectionDetail(error)}).`,
      { cause: error },
    );
  }
  return new ModelError('model_bad_response', `The model endpoint answered with something unusable: ${errorMessage(error)}`, {
    cause: error,
  });
}

function statusError(error: APIError, status: number): ModelError {
  const said = `HTTP ${status}: ${providerMessage(error)}`;
  const wrap = (code: ModelErrorCode, message: string) => new ModelError(code, message, { cause: error });
  if (status === 429 && isQuotaExhausted(error.error)) {
    return wrap('model_quota_exceeded', `The model provider's quota for this API key is exhausted (${said}). Add credit or raise the limit.`);
  }
  if (status === 429) return wrap('model_rate_limited', `The model provider is still rate limiting after retries (${said}).`);
  if (status === 401 || status === 403) {
    return wrap('model_auth_failed', `The model provider rejected the API key (${said}). Check OPENAI_API_KEY and its access to the model.`);
  }
  if (status >= 400 && status < 500) return wrap('model_rejected_request', `The model provider rejected the request (${said}).`);
  return wrap('model_unavailable', `The model provider failed (${said}).`);
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
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 5 && isJsonObject(cause); depth += 1, cause = cause['cause']) {
    if (typeof cause['code'] === 'string') return cause['code'];
  }
  return error.message;
}

function endpointHost(client: OpenAI): string {
  try {
    return new URL(client.baseURL).host;
  } catch {
    return '(invalid base URL)';
  }
}

/** Providers sometimes quote the key back in a 401 message; it never leaves this adapter. */
function redactKey(error: ModelError, apiKey: string | null): ModelError {
  if (!apiKey || apiKey.length < 8 || !error.message.includes(apiKey)) return error;
  return new ModelError(error.code, error.message.replaceAll(apiKey, '[redacted]'), {
    cause: error.cause,
    timeout: error.timeout,
  });
}
