/**
 * `ModelClient` on Amazon Bedrock's Converse API: one Converse call per round, or ConverseStream
 * when the request watches the reply (`onDelta`). The client is injected (client.ts builds it:
 * SigV4 from the default credential chain, the region, BEDROCK_ENDPOINT); requests are built by
 * wire.ts, replies read by reply.ts from either call, failures retried by attempts.ts and wrapped
 * once into a ModelError by errors.ts.
 */
import { ConverseCommand, ConverseStreamCommand, type BedrockRuntimeClient, type ConverseRequest } from '@aws-sdk/client-bedrock-runtime';
import { callSignal } from '../../core/deadline.ts';
import { errorMessage } from '../../core/errors.ts';
import { silentLogger, type Logger } from '../../core/logger.ts';
import { responseFormatInstruction } from '../../core/response-format.ts';
import type { ModelClient, ModelDelta, ModelReply, ModelRequest } from '../../core/ports/model.ts';
import { AttemptsFailed, StalledError, withAttempts, type Attempt } from './attempts.ts';
import { toModelError } from './errors.ts';
import { toReply, type ConverseResult } from './reply.ts';
import { createStreamAccumulator } from './stream-accumulator.ts';
import { toWireRequest, type WireRequest } from './wire.ts';

interface BedrockGuardrail {
  id: string;
  version: string;
  /** Bedrock's trace of the guardrail's assessment in the response. */
  trace?: 'enabled' | 'disabled' | 'enabled_full';
}

export interface BedrockModelOptions {
  client: BedrockRuntimeClient;
  /** A model id, an inference profile id (`us.…`, `eu.…`, `global.…`) or an ARN. */
  model: string;
  /** Where the client sends requests (a region, or BEDROCK_ENDPOINT), for messages. */
  endpoint: string;
  temperature?: number;
  maxTokens?: number;
  maxRetries: number;
  /** One attempt's limit: a Converse answer, or for a stream the wait for its next event. */
  attemptTimeoutMs: number;
  /** cachePoint blocks after the system prompt and the tools (models with prompt caching). */
  promptCache?: boolean;
  guardrail?: BedrockGuardrail;
  /** Extended thinking (Anthropic models on Bedrock): the tokens the model may reason with. */
  reasoningBudgetTokens?: number;
  logger?: Logger;
}

/** Tokens left for the answer when only a reasoning budget is set: Claude needs maxTokens above the budget. */
const ANSWER_TOKENS_BEYOND_REASONING = 4096;

export function createBedrockModel(options: BedrockModelOptions): ModelClient {
  const logger = options.logger ?? silentLogger;
  return {
    async complete(request: ModelRequest): Promise<ModelReply> {
      const startedAt = Date.now();
      const call = callSignal(request, 'The model call timed out.');
      const { signal } = call;
      const wire = toWireRequest(request.messages, request.tools, { promptCache: options.promptCache ?? false });
      const input = converseInput(options, request, wire);
      const streamed = request.onDelta !== undefined;
      const watcher = request.onDelta ? createWatcher(request.onDelta, logger) : undefined;
      try {
        const { result, attempts } = await withAttempts({ maxRetries: options.maxRetries, attemptTimeoutMs: options.attemptTimeoutMs, signal, logger }, (attempt) =>
          watcher ? streamOnce(options, input, attempt, (delta) => watcher.deliver(delta, attempt)) : converseOnce(options, input, attempt),
        );
        const reply = toReply(result, wire.ids);
        // Text the reply has that no event carried (the sentence a silent guardrail is answered
        // with) goes out last, so the deltas join to the content as always.
        if (watcher && reply.content?.startsWith(watcher.text) && reply.content.length > watcher.text.length) {
          watcher.deliver({ kind: 'text', text: reply.content.slice(watcher.text.length) });
        }
        if (result.stopReason === 'guardrail_intervened' || result.stopReason === 'content_filtered') {
          logger.warn('model-reply-blocked', { model: options.model, stopReason: result.stopReason, ...(options.guardrail ? { guardrail: options.guardrail.id } : {}) });
        }
        logger.debug('model-call-completed', {
          model: options.model,
          durationMs: Date.now() - startedAt,
          streamed,
          attempts,
          stopReason: result.stopReason,
          toolCalls: reply.toolCalls.length,
          ...reply.usage,
        });
        return reply;
      } catch (error) {
        const cause = error instanceof AttemptsFailed ? error.cause : error;
        const timedOut = call.timedOut() || isTimeoutAbort(request.signal) || cause instanceof StalledError;
        const modelError = toModelError(cause, {
          model: options.model,
          endpoint: options.endpoint,
          timedOut,
          aborted: !timedOut && request.signal?.aborted === true,
          timeoutMs: cause instanceof StalledError ? options.attemptTimeoutMs : request.timeoutMs,
          attempts: error instanceof AttemptsFailed ? error.attempts : 1,
          streamed,
        });
        logger.warn('model-call-failed', { model: options.model, code: modelError.code, message: modelError.message });
        throw modelError;
      } finally {
        call.clear();
      }
    },
  };
}

function converseInput(options: BedrockModelOptions, request: ModelRequest, wire: WireRequest): ConverseRequest {
  const reasoning = options.reasoningBudgetTokens;
  const caps = [options.maxTokens ?? (reasoning === undefined ? undefined : reasoning + ANSWER_TOKENS_BEYOND_REASONING), request.maxTokens].filter((cap) => cap !== undefined);
  return {
    modelId: options.model,
    messages: wire.messages,
    // Converse has no JSON mode: a structured answer is asked for after the system prompt (after its
    // cache point, so the cached prefix stays the same), and the loop validates it.
    ...(wire.system.length > 0 || request.responseFormat ? { system: [...wire.system, ...(request.responseFormat ? [{ text: responseFormatInstruction(request.responseFormat) }] : [])] } : {}),
    ...(wire.toolConfig ? { toolConfig: wire.toolConfig } : {}),
    inferenceConfig: {
      ...(caps.length > 0 ? { maxTokens: Math.min(...caps) } : {}),
      // Anthropic's extended thinking refuses any temperature but its own.
      ...(options.temperature === undefined || reasoning !== undefined ? {} : { temperature: options.temperature }),
    },
    ...(reasoning === undefined ? {} : { additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: reasoning } } }),
    ...(options.guardrail
      ? { guardrailConfig: { guardrailIdentifier: options.guardrail.id, guardrailVersion: options.guardrail.version, trace: options.guardrail.trace ?? 'disabled' } }
      : {}),
  };
}

async function converseOnce(options: BedrockModelOptions, input: ConverseRequest, attempt: Attempt): Promise<ConverseResult> {
  return options.client.send(new ConverseCommand(input), { abortSignal: attempt.signal });
}

async function streamOnce(options: BedrockModelOptions, input: ConverseRequest, attempt: Attempt, deliver: (delta: ModelDelta) => void): Promise<ConverseResult> {
  const response = await options.client.send(new ConverseStreamCommand(input), { abortSignal: attempt.signal });
  const accumulator = createStreamAccumulator();
  for await (const event of response.stream ?? []) {
    attempt.stillAlive();
    for (const delta of accumulator.add(event)) deliver(delta);
  }
  if (attempt.signal.aborted) throw attempt.signal.reason;
  // A stream cut off without messageStop is not a whole reply, whatever it held.
  if (!accumulator.ended) throw Object.assign(new Error('the stream ended before the reply did (no messageStop)'), { name: 'ModelStreamErrorException' });
  return accumulator.result();
}

interface Watcher {
  /** The text handed out so far. */
  readonly text: string;
  /** Hands a delta out; with the attempt, marks it as one a retry could not take back. */
  deliver(delta: ModelDelta, attempt?: Attempt): void;
}

/** Hands each delta to the watcher; a watcher that fails (a client gone) must not fail the turn. */
function createWatcher(onDelta: (delta: ModelDelta) => void, logger: Logger): Watcher {
  let watcherFailed = false;
  let text = '';
  return {
    get text() {
      return text;
    },
    deliver(delta, attempt) {
      attempt?.delivered();
      if (delta.kind === 'text') text += delta.text;
      try {
        onDelta(delta);
      } catch (error) {
        if (!watcherFailed) logger.warn('model-delta-watcher-failed', { message: errorMessage(error) });
        watcherFailed = true;
      }
    },
  };
}

/** A caller's signal from `AbortSignal.timeout` (reason TimeoutError) is a timeout, not a cancellation. */
const isTimeoutAbort = (signal: AbortSignal | undefined): boolean =>
  signal?.aborted === true && signal.reason instanceof Error && signal.reason.name === 'TimeoutError';
