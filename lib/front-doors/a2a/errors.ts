import { A2AError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { Logger } from '../../core/logger.ts';
import { errorResponse } from '../../http/errors.ts';
import type { HttpResponse } from '../../http/types.ts';

/** The service's error as lib/http/errors.ts answers it: the status, and its code and message. */
function nativeError(error: unknown, logger: Logger): { response: HttpResponse; code: string; message: string } {
  const response = errorResponse(error, logger);
  const { code, message } = (JSON.parse(response.body) as { error: { code: string; message: string } }).error;
  return { response, code, message };
}

/** An error of the agent for the A2A wire, and the native response it would have been (its status and headers, Retry-After say). */
export interface A2AFailure {
  error: A2AError;
  native?: HttpResponse;
}

/**
 * An error of the agent as an A2A error, for the SDK's transport to put on the wire: what the
 * client must fix is a malformed request (-32602), a turn or conversation that is not there is
 * TaskNotFound, and the rest (a busy conversation, a limit, a model or store that failed) keeps
 * the native message and code (`metadata.code`) as an A2A internal error. The message is the one
 * the native API would show: details of a server fault stay in the log.
 */
export function a2aFailureOf(error: unknown, logger: Logger): A2AFailure {
  if (error instanceof A2AError) return { error };
  const { response, code, message } = nativeError(error, logger);
  const options = { message, metadata: { code, status: String(response.statusCode) } };
  if (response.statusCode === 404) return { error: new TaskNotFoundError(options), native: response };
  if (response.statusCode === 400 || response.statusCode === 413 || response.statusCode === 415 || response.statusCode === 422) return { error: new RequestMalformedError(options), native: response };
  return { error: new A2AError(options), native: response };
}

/** JSON-RPC 2.0's own codes, for a request the transport never read. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;

/**
 * An error raised before the SDK's transport read the request (a body too large or not JSON, a
 * caller who could not be identified, an unknown path): a JSON-RPC error object, `id` null, with
 * the status lib/http/errors.ts gives it and the native code as `data.code`.
 */
export function a2aErrorResponse(error: unknown, logger: Logger): HttpResponse {
  const { response, code, message } = nativeError(error, logger);
  const rpcCode = code === 'malformed_json' ? PARSE_ERROR : response.statusCode < 500 ? INVALID_REQUEST : INTERNAL_ERROR;
  return { ...response, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: rpcCode, message, data: { code } } }) };
}
