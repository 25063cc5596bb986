/**
 * `ModelClient` on an OpenAI-compatible endpoint (client.ts): one Chat Completions call per round, streamed when the request
 * watches the reply (`onDelta`, stream.ts) and plain otherwise. Requests are built by wire.ts,
 * replies normalized by normalize.ts either way, and every failure is wrapped once into a
 * `ModelError` whose code says who must act (errors.ts).
 */
import { silentLogger, type Logger } from '../../core/logger.ts';
import type { ModelClient, ModelReply, ModelRequest } from '../../core/ports/model.ts';
import { callSignal } from '../../core/deadline.ts';
import type { ChatCompletionsClient } from './client.ts';
import { redactKey, toModelError } from './errors.ts';
import { normalizeCompletion } from './normalize.ts';
import { streamReply } from './stream.ts';
import { withTextToolCalls } from './text-tool-calls.ts';
import { toWireMessages, toWireTools } from './wire.ts';

export interface OpenAIModelOptions {
  client: ChatCompletionsClient;
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
      // The client's `timeout` bounds one HTTP attempt; this signal bounds the call, retries included.
      const call = callSignal(request, 'The model call timed out.');
      const { signal } = call;
      // The client hands back the parsed JSON untouched, so fields the SDK's types omit
      // (reasoning_content, object arguments) reach the normalizer.
      const toReply = (body: unknown): ModelReply => {
        const normalized = normalizeCompletion(body);
        return options.textToolCalls ? withTextToolCalls(normalized, request.tools) : normalized;
      };
      try {
        if (request.onDelta) {
          const streamed = await streamReply({
            client: options.client,
            body: { ...requestBody(options, request), stream: true, stream_options: { include_usage: true } },
            signal,
            idleTimeoutMs: options.client.timeout,
            onDelta: request.onDelta,
            holdTextToolCalls: options.textToolCalls ?? false,
            toReply,
            logger,
          });
          const { reply, chunks, attempts, firstDeltaMs } = streamed;
          logger.debug('model-call-completed', {
            model: options.model,
            durationMs: Date.now() - startedAt,
            streamed: true,
            chunks,
            attempts,
            ...(firstDeltaMs === undefined ? {} : { firstDeltaMs }),
            toolCalls: reply.toolCalls.length,
            ...reply.usage,
          });
          return reply;
        }
        const body: unknown = await options.client.create(
          { ...requestBody(options, request), stream: false },
          {
            ...(signal ? { signal } : {}),
            ...(request.timeoutMs === undefined ? {} : { timeout: request.timeoutMs }),
          },
        );
        const reply = toReply(body);
        logger.debug('model-call-completed', {
          model: options.model,
          durationMs: Date.now() - startedAt,
          toolCalls: reply.toolCalls.length,
          ...reply.usage,
        });
        return reply;
      } catch (error) {
        const timedOut = call.timedOut() || isTimeoutAbort(request.signal);
        const modelError = redactKey(toModelError(error, options.client, timedOut, request.timeoutMs), options.client.apiKey);
        logger.warn('model-call-failed', { model: options.model, code: modelError.code, message: modelError.message, ...(modelError.detail === undefined ? {} : { detail: modelError.detail }) });
        throw modelError;
      } finally {
        call.clear();
      }
    },
  };
}

/** Shaped like the original request: model, messages, tools, tool_choice, temperature (then `stream`). */
function requestBody(options: OpenAIModelOptions, request: ModelRequest) {
  const hasTools = request.tools.length > 0;
  return {
    model: options.model,
    // Wire messages also carry what the SDK's types omit: `name` on tool messages, echoed reasoning.
    messages: toWireMessages(request.messages),
    // Providers reject `tool_choice` without tools, so both go or neither.
    ...(hasTools ? { tools: toWireTools(request.tools), tool_choice: 'auto' as const } : {}),
    temperature: options.temperature,
    ...maxTokensOf(options.maxTokens, request.maxTokens),
    ...responseFormatOf(request.responseFormat),
  };
}

/** A structured answer as Chat Completions' native structured output; the loop still validates it. */
function responseFormatOf(format: ModelRequest['responseFormat']) {
  if (!format) return {};
  const jsonSchema = { name: format.name, schema: format.schema, ...(format.strict === undefined ? {} : { strict: format.strict }) };
  return { response_format: { type: 'json_schema' as const, json_schema: jsonSchema } };
}

/** The request's own cap (a sampling request's) within the configured one; sent only when either is set. */
function maxTokensOf(configured: number | undefined, requested: number | undefined): { max_tokens?: number } {
  const caps = [configured, requested].filter((cap) => cap !== undefined);
  return caps.length === 0 ? {} : { max_tokens: Math.min(...caps) };
}

/** A caller's signal from `AbortSignal.timeout` (reason TimeoutError) is a timeout, not a cancellation. */
const isTimeoutAbort = (signal: AbortSignal | undefined): boolean =>
  signal?.aborted === true && signal.reason instanceof Error && signal.reason.name === 'TimeoutError';
