/**
 * Bedrock's exceptions → ModelError, once, at the adapter's boundary, with a message that says what
 * to fix. Bedrock's own message is quoted (on one line, cut at 500 characters); the request body
 * never is.
 *
 *   ThrottlingException                             model_rate_limited    (retried first)
 *   ServiceQuotaExceededException                   model_quota_exceeded
 *   AccessDeniedException, bad or no credentials    model_auth_failed     names the model, the permission
 *   ValidationException, ResourceNotFoundException  model_rejected_request
 *   ModelTimeoutException, our own deadline         model_timeout         (retried first)
 *   ServiceUnavailable, InternalServer,
 *   ModelNotReady, ModelStreamError, ModelError,
 *   no connection                                   model_unavailable     (retried first, but ModelError/ModelStreamError)
 *   the caller's signal                             model_aborted
 */
import { ModelError, errorMessage, type ModelErrorCode } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';

interface ErrorContext {
  /** The model id, inference profile or ARN the request named. */
  model: string;
  /** Where the client sends requests: a region, or the endpoint BEDROCK_ENDPOINT set. */
  endpoint: string;
  /** The call's own deadline ran out (or the caller's timeout signal fired). */
  timedOut: boolean;
  /** The caller cancelled the call. */
  aborted: boolean;
  timeoutMs: number | undefined;
  /** Attempts made, so a message after retries says so. */
  attempts: number;
  /** The failure came from a stream (ConverseStream), which needs its own IAM action. */
  streamed: boolean;
}

/**
 * The HTTP status each exception has in Bedrock's service model: what an exception met inside a
 * stream (a 200 response) is judged by, with the same retry rules as a failed response.
 */
const EXCEPTION_STATUS: Readonly<Record<string, number>> = {
  ThrottlingException: 429,
  ModelNotReadyException: 429,
  ModelTimeoutException: 408,
  ServiceUnavailableException: 503,
  InternalServerException: 500,
  ModelStreamErrorException: 424,
  ModelErrorException: 424,
  AccessDeniedException: 403,
  ValidationException: 400,
  ResourceNotFoundException: 404,
  ServiceQuotaExceededException: 400,
  ConflictException: 400,
};

const CREDENTIAL_ERRORS = new Set([
  'CredentialsProviderError',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'IncompleteSignatureException',
  'ExpiredTokenException',
  'MissingAuthenticationTokenException',
  'InvalidClientTokenId',
]);

/** The status Bedrock answered with, or the one its exception has; undefined when nothing answered. */
export function statusOf(error: unknown): number | undefined {
  if (!isJsonObject(error) && !(error instanceof Error)) return undefined;
  const metadata = (error as { $metadata?: { httpStatusCode?: number } }).$metadata;
  const answered = metadata?.httpStatusCode;
  if (answered !== undefined && answered >= 400) return answered;
  return EXCEPTION_STATUS[(error as Error).name];
}

/** True when the error came from Bedrock (an exception it sent), not from the way there. */
export const isServiceError = (error: unknown): boolean =>
  error instanceof Error && ((error as { $fault?: unknown }).$fault !== undefined || EXCEPTION_STATUS[error.name] !== undefined);

export function toModelError(error: unknown, context: ErrorContext): ModelError {
  if (error instanceof ModelError) return error;
  const wrap = (code: ModelErrorCode, message: string, timeout = false) => new ModelError(code, message, { cause: error, timeout });
  if (context.aborted) return wrap('model_aborted', 'The model call was cancelled before the model answered.');
  if (context.timedOut) {
    const limit = context.timeoutMs === undefined ? '' : ` within ${context.timeoutMs / 1000} s`;
    return wrap('model_timeout', `Bedrock model ${context.model} did not answer${limit}.`, true);
  }
  const name = error instanceof Error ? error.name : '';
  const said = `${name}: ${bedrockMessage(error)}`;
  const afterRetries = context.attempts > 1 ? ` after ${context.attempts} attempts` : '';
  const action = context.streamed ? 'bedrock:InvokeModelWithResponseStream' : 'bedrock:InvokeModel';

  if (name === 'ThrottlingException') {
    return wrap('model_rate_limited', `Bedrock is still throttling requests to ${context.model}${afterRetries} (${said}). Lower the request rate, or raise the model's quota in Service Quotas (or use a cross-region inference profile).`);
  }
  if (name === 'ServiceQuotaExceededException') {
    return wrap('model_quota_exceeded', `A Bedrock quota for ${context.model} is exceeded (${said}). Raise it in Service Quotas.`);
  }
  if (name === 'AccessDeniedException') {
    return wrap('model_auth_failed', `Bedrock denied access to ${context.model} (${said}). Allow ${action} on this model (and, for an inference profile, on the foundation model in each region it routes to) to the role the service runs as, and grant access to the model in the Bedrock console (Model access).`);
  }
  if (CREDENTIAL_ERRORS.has(name)) {
    return wrap('model_auth_failed', `Bedrock did not accept the AWS credentials (${said}). Check the credentials the service runs with (the function's role; locally AWS_PROFILE, AWS_ACCESS_KEY_ID or an SSO login).`);
  }
  if (name === 'ResourceNotFoundException') {
    return wrap('model_rejected_request', `Bedrock does not know the model ${context.model} at ${context.endpoint} (${said}). Check model.name (a model id, inference profile id or ARN) and the region.`);
  }
  if (name === 'ValidationException') {
    return wrap('model_rejected_request', `Bedrock rejected the request to ${context.model} (${said}).`);
  }
  if (name === 'ModelTimeoutException') {
    return wrap('model_timeout', `Bedrock model ${context.model} took too long to answer${afterRetries} (${said}).`, true);
  }
  const status = statusOf(error);
  if (isServiceError(error) || status !== undefined) {
    if (status !== undefined && status >= 400 && status < 500 && !['ModelNotReadyException', 'ModelErrorException', 'ModelStreamErrorException'].includes(name)) {
      return wrap('model_rejected_request', `Bedrock rejected the request to ${context.model} (HTTP ${status}, ${said}).`);
    }
    return wrap('model_unavailable', `Bedrock could not answer with ${context.model}${afterRetries} (${said}).`);
  }
  if (/region is missing/i.test(errorMessage(error))) {
    return wrap('model_rejected_request', 'No AWS region is set for Bedrock: set AWS_REGION (or model.region in agent.yml).');
  }
  const connection = causeCode(error);
  if (connection !== undefined) {
    return wrap('model_unavailable', `Could not reach Bedrock at ${context.endpoint}${afterRetries} (${connection}).`);
  }
  return wrap('model_unavailable', `The call to Bedrock at ${context.endpoint} failed${afterRetries}: ${oneLine(errorMessage(error))}.`);
}

/** The exception's message; Bedrock's service messages never carry the request. */
function bedrockMessage(error: unknown): string {
  return oneLine(error instanceof Error && error.message ? error.message : 'no error message');
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 500 ? `${line.slice(0, 500)}…` : line;
}

/** The first `code` (ECONNREFUSED, ENOTFOUND…) in the error's cause chain. */
function causeCode(error: unknown): string | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && (isJsonObject(cause) || cause instanceof Error); depth += 1, cause = (cause as { cause?: unknown }).cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$|^ERR_/.test(code)) return code;
  }
  return undefined;
}
