import { AgentError, ConfigError, ConflictError, InputError, LimitError, MethodNotAllowedError, ModelError, ModelNotConfiguredError, StoreError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { TurnResult } from '../core/turn.ts';
import { INPUT_STATUS, LIMIT_STATUS, MODEL_STATUS, STORE_STATUS } from './status.ts';
import type { HttpResponse } from './types.ts';

/**
 * The one place errors become HTTP. 4xx messages are written for the caller and shown as they are;
 * anything else gets a generic message with its code, and the details go to the log.
 */
export function errorResponse(error: unknown, logger: Logger): HttpResponse {
  if (error instanceof MethodNotAllowedError) return json(405, errorBody(error.code, error.message), { allow: error.allow });
  if (error instanceof ConflictError && error.retryAfterSeconds !== undefined) {
    return json(409, errorBody(error.code, error.message), { 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) });
  }
  if (error instanceof LimitError) {
    // Which limit, its value and when it resets go with the code, so a client can wait or say why.
    const retryAfter: Record<string, string> = error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) };
    return json(LIMIT_STATUS[error.code], { error: { code: error.code, message: error.message, ...error.details } }, retryAfter);
  }
  if (error instanceof InputError) return json(INPUT_STATUS[(error as InputError).code], errorBody(error.code, error.message));
  if (error instanceof ModelNotConfiguredError) return json(503, errorBody(error.code, error.message));
  if (error instanceof ModelError) {
    logger.warn('model failed', { code: error.code, error: error.message, ...(error.detail === undefined ? {} : { detail: error.detail }) });
    return json(MODEL_STATUS[error.code], errorBody(error.code, upstreamMessage(error.code, error.message)));
  }
  if (error instanceof StoreError) {
    logger.error('store failed', { code: error.code, error: error.message, cause: String(error.cause) });
    const status = STORE_STATUS[error.code];
    if (error.code === 'store_unavailable') return json(status, errorBody(error.code, STORE_UNAVAILABLE), { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) });
    // Tools ran and the turn is not stored: the same question again would run them again.
    return json(status, errorBody(error.code, error.message), error.code === 'turn_not_stored' ? { ...NOT_TO_BE_RETRIED } : {});
  }
  const code = error instanceof AgentError && !(error instanceof ConfigError) ? error.code : 'internal_error';
  logger.error('request failed', { code, error: error instanceof Error ? error.stack ?? error.message : String(error) });
  return json(500, errorBody(code, 'The service failed to handle the request. The details are in its log.'));
}

/**
 * When to retry after the store was unavailable: nobody knows when an outage ends, and the service
 * already waited conversation.unavailableWaitSeconds for it; a few seconds spreads the retries out.
 */
const STORE_RETRY_AFTER_SECONDS = 5;

/** A store failure before anything ran: safe to retry as it is. */
const STORE_UNAVAILABLE = 'The conversation store is unavailable, so the request was not carried out: no tool ran for it. Try again shortly.';

/**
 * A stored turn is a result, whatever ended it: a turn that stopped with `error` (the model, or the
 * store recording a round, failed after tools ran) is answered like any other turn, with its
 * `error` naming the failure, and this header, which the OpenAI SDKs and others read: the turn is
 * stored, and running the question again would run its tools again.
 */
export const NOT_TO_BE_RETRIED: Readonly<Record<string, string>> = { 'x-should-retry': 'false' };

/** The headers of a turn result: a turn that ended with `error` must not be retried. */
export const turnResultHeaders = (result: TurnResult): Record<string, string> => (result.stopReason === 'error' ? { ...NOT_TO_BE_RETRIED } : {});

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  };
}

const errorBody = (code: string, message: string) => ({ error: { code, message } });

function upstreamMessage(code: string, message: string): string {
  return `The language model failed (${code}): ${sentence(message)} The conversation's stored history is unchanged; retry the request.`;
}

/** A message ending in exactly one full stop, however the wrapped text ended. */
const sentence = (text: string): string => `${text.trim().replace(/[.。]+$/, '')}.`;
