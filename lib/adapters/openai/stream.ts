/**
 * One streamed Chat Completions call (`stream: true`): chunks are accumulated into the body a
 * non-streaming call would have returned (stream-accumulator.ts) and normalized the same way, while
 * the text and reasoning they carry are handed to the watcher as they arrive (stream-deltas.ts).
 *
 * Failures and retries, as a watcher can bear them:
 *
 *   request fails before the stream starts (HTTP status, connection)   the SDK's own retries
 *   stream breaks off, or stalls, before any delta was handed out      retried here, same budget
 *   stream breaks off after a delta was handed out                     never retried: the watcher
 *                                                                      has seen text a retry would
 *                                                                      not repeat
 *   stream ends with neither a finish_reason nor [DONE]                cut off: a failure like a
 *                                                                      break, retried on the same
 *                                                                      terms, never taken as a reply
 *   the caller's signal or the call's deadline                         ends it, never retried
 *
 * The SDK ends a stream silently when its signal aborts, so the signals are checked after the
 * last chunk: a cut-off stream is never taken for a whole reply.
 */
import { APIUserAbortError } from 'openai/core/error';
import { ModelError, errorMessage, type ModelErrorCode } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { ModelDelta, ModelReply } from '../../core/ports/model.ts';
import type { ChatCompletionsClient } from './client.ts';
import { brokenStreamError } from './errors.ts';
import { retryDelayMs, waitForRetry } from './retry.ts';
import { createCompletionAccumulator } from './stream-accumulator.ts';
import { createDeltaSplitter } from './stream-deltas.ts';

interface StreamedCallOptions {
  client: ChatCompletionsClient;
  body: Record<string, unknown>;
  /** The caller's signal and the call's deadline, combined. */
  signal: AbortSignal | undefined;
  /** The longest wait for the next chunk (the client's per-attempt timeout). */
  idleTimeoutMs: number;
  onDelta: (delta: ModelDelta) => void;
  /** Calls written as text are read (model.textToolCalls): such text is held, not streamed. */
  holdTextToolCalls: boolean;
  /** The accumulated body → the reply, exactly as for a non-streamed body. */
  toReply: (body: unknown) => ModelReply;
  logger: Logger;
}

interface StreamedReply {
  reply: ModelReply;
  chunks: number;
  attempts: number;
  /** From the request to the first delta handed out, when there was one. */
  firstDeltaMs?: number;
}

/** Failures a fresh stream may not repeat; the others (rejected, bad response) would. */
const RETRYABLE: ReadonlySet<ModelErrorCode> = new Set(['model_unavailable', 'model_rate_limited', 'model_timeout']);

/** A failure after the stream started, so not one the SDK has retried. */
class BrokenStream extends Error {
  readonly failure: ModelError;

  constructor(failure: ModelError) {
    super(failure.message, { cause: failure });
    this.failure = failure;
  }
}

export async function streamReply(options: StreamedCallOptions): Promise<StreamedReply> {
  const startedAt = Date.now();
  let delivered = 0;
  let firstDeltaMs: number | undefined;
  let watcherFailed = false;
  const deliver = (delta: ModelDelta) => {
    delivered += 1;
    firstDeltaMs ??= Date.now() - startedAt;
    try {
      options.onDelta(delta);
    } catch (error) {
      // A watcher that fails (a client gone) must not fail the turn it watches.
      if (!watcherFailed) options.logger.warn('model-delta-watcher-failed', { message: errorMessage(error) });
      watcherFailed = true;
    }
  };

  for (let attempt = 1; ; attempt += 1) {
    try {
      const { reply, chunks } = await streamOnce(options, deliver);
      return { reply, chunks, attempts: attempt, ...(firstDeltaMs === undefined ? {} : { firstDeltaMs }) };
    } catch (error) {
      if (!(error instanceof BrokenStream)) throw error;
      const { failure } = error;
      const retry = delivered === 0 && attempt <= options.client.maxRetries && RETRYABLE.has(failure.code);
      if (!retry) throw failure;
      options.logger.warn('model-stream-retried', { attempt, code: failure.code, message: failure.message, ...(failure.detail === undefined ? {} : { detail: failure.detail }) });
      await waitForRetry(retryDelayMs(undefined, options.client.maxRetries - attempt + 1, options.client.maxRetries), options.signal);
    }
  }
}

async function streamOnce(options: StreamedCallOptions, deliver: (delta: ModelDelta) => void): Promise<{ reply: ModelReply; chunks: number }> {
  const stalled = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stalled.signal]) : stalled.signal;
  // Failures here (statuses, connections, the SDK's timeout up to the headers) come after the SDK's retries.
  const stream = await options.client.stream(options.body, { signal });

  const accumulator = createCompletionAccumulator();
  const splitter = createDeltaSplitter({ holdTextToolCalls: options.holdTextToolCalls });
  let chunks = 0;
  let idleTimer = setTimeout(() => stalled.abort(), options.idleTimeoutMs);
  try {
    for await (const chunk of stream) {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => stalled.abort(), options.idleTimeoutMs);
      chunks += 1;
      for (const piece of accumulator.add(chunk)) for (const delta of splitter.push(piece)) deliver(delta);
    }
  } catch (error) {
    if (options.signal?.aborted) throw new APIUserAbortError();
    throw new BrokenStream(brokenStreamError(error, options.client));
  } finally {
    clearTimeout(idleTimer);
  }

  if (options.signal?.aborted) throw new APIUserAbortError();
  if (stalled.signal.aborted) {
    throw new BrokenStream(
      new ModelError('model_timeout', `The model stopped streaming: nothing arrived for ${options.idleTimeoutMs / 1000} s.`, { timeout: true }),
    );
  }
  // A stream that just ends, with neither [DONE] nor a finish_reason, was cut off (a proxy or the
  // provider closed it mid-reply): what arrived is not the whole reply, so it is no reply at all.
  if (!stream.done && !accumulator.finished) {
    throw new BrokenStream(
      new ModelError('model_unavailable', `The model endpoint's stream ended before the reply was complete (no finish_reason and no [DONE] after ${chunks} chunks), so the reply was cut off.`),
    );
  }
  if (!accumulator.hasReply) {
    throw new ModelError('model_bad_response', `The model endpoint ended its stream without a reply (${chunks} chunks, none with choices[0]).`);
  }
  const reply = options.toReply(accumulator.completion());
  for (const delta of splitter.finish(reply.content)) deliver(delta);
  return { reply, chunks };
}
