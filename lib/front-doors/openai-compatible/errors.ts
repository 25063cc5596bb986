import { BudgetExhaustedError, InputError, ModelError, TurnNotStoredError, type InputErrorCode } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { errorResponse, NOT_TO_BE_RETRIED } from '../../http/errors.ts';
import type { HttpResponse } from '../../http/types.ts';

/** An input error that names the request parameter at fault, as OpenAI's `param` does. */
export class ParameterError<Code extends InputErrorCode = InputErrorCode> extends InputError<Code> {
  readonly param: string;

  constructor(code: Code, message: string, param: string) {
    super(code, message);
    this.param = param;
  }
}

/** OpenAI's error object. `code` is the service's own stable code, as in the native API. */
interface OpenAIError {
  message: string;
  type: string;
  param: string | null;
  code: string;
}

/**
 * The native API's error response (lib/http/errors.ts decides the status, the message and what is
 * logged) in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`, same status and
 * headers (`Allow`, `Retry-After`).
 *
 * `x-should-retry: false` (read by the OpenAI SDKs, which otherwise retry every 409, 429 and 5xx)
 * where a retry would not help or could do harm: a model failure was already retried by the service
 * (`model.maxRetries`), a turn whose tools ran would run them again, and a spent token budget comes
 * back at midnight or never (too_many_turns is worth the SDK's retry).
 */
export function openAIErrorResponse(error: unknown, logger: Logger): HttpResponse {
  const noRetry = error instanceof ModelError || error instanceof TurnNotStoredError || error instanceof BudgetExhaustedError;
  return reshape(errorResponse(error, logger), error instanceof ParameterError ? error.param : null, noRetry ? NO_RETRY : {});
}

const NO_RETRY = NOT_TO_BE_RETRIED;

function reshape(native: HttpResponse, param: string | null, headers: Record<string, string>): HttpResponse {
  const { error } = JSON.parse(native.body) as { error: { code: string; message: string } };
  const body = { error: openAIError(native.statusCode, error.code, error.message, param) };
  return { statusCode: native.statusCode, headers: { ...native.headers, ...headers }, body: JSON.stringify(body) };
}

function openAIError(status: number, code: string, message: string, param: string | null = null): OpenAIError {
  return { message, type: errorType(status), param, code };
}

/** OpenAI's error types by status; the code says more. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}
