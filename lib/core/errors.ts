import { exhaustionText, type BudgetExhaustion } from './budget.ts';

/**
 * One error root. Subclasses are split by who must act; every error has a stable string `code`
 * (a union per class, so lib/http/status.ts can map every code and the compiler checks it does)
 * and keeps its `cause`. HTTP statuses are decided only in lib/http.
 */
export class AgentError<Code extends string = string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** agent.yml or the environment is wrong: fails the cold start. */
export class ConfigError extends AgentError<'invalid_config'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_config', message, options);
  }
}

/** Everything a caller can get wrong; the message says what to fix. */
export type InputErrorCode =
  // the request body
  | 'missing_body'
  | 'malformed_json'
  | 'invalid_body'
  | 'unknown_field'
  | 'body_too_large'
  | 'unsupported_media_type'
  // the question and ids
  | 'missing_message'
  | 'invalid_message'
  | 'empty_message'
  | 'message_too_long'
  | 'missing_conversation_id'
  | 'invalid_conversation_id'
  | 'missing_request_id'
  | 'invalid_request_id'
  /** A requestId (or Idempotency-Key) already used for another request: another message, other decisions. */
  | 'request_id_reused'
  | 'invalid_owner'
  /** Earlier messages a stateless client sent that no model would accept (a call without its answer). */
  | 'invalid_messages'
  /** A responseFormat (or /v1 response_format) that is not a JSON Schema format the agent can check. */
  | 'invalid_response_format'
  // the OpenAI-compatible front door (/v1)
  /** A Chat Completions request naming a model this service does not serve (OpenAI's own code). */
  | 'model_not_found'
  /** A Chat Completions parameter the agent cannot honour (client-side tools, several choices, ...). */
  | 'unsupported_parameter'
  /** Message content the agent cannot represent (images, audio, files). */
  | 'unsupported_content'
  // asynchronous payloads
  | 'invalid_payload'
  | 'unsupported_event'
  | 'owner_not_allowed'
  // approval decisions
  | 'invalid_decisions'
  | 'invalid_answer'
  | 'undecided_calls'
  // reading a conversation page by page
  | 'invalid_limit'
  | 'invalid_page_token'
  | 'unknown_query_parameter'
  // memory notes
  | 'invalid_note_id'
  | 'note_not_found'
  | 'memory_not_enabled'
  // the files of a conversation
  | 'invalid_file_name'
  | 'file_not_found'
  | 'files_not_enabled'
  // resuming a turn's event stream (Last-Event-ID)
  | 'invalid_last_event_id'
  // a turn's trace
  | 'invalid_turn'
  | 'turn_not_found'
  // per-user connections (docs/users-own-accounts.md)
  /** No MCP server of agent.yml by that name is connected per user (auth.mode: per-user). */
  | 'connection_server_unknown'
  /** A connection callback whose state is unknown, expired or already used. */
  | 'connection_state_invalid'
  /** The provider refused (error= on the callback), or would not exchange the code for tokens. */
  | 'connection_refused'
  | 'trace_not_found'
  // who and where
  | 'unauthenticated'
  | 'conversation_not_found'
  | 'route_not_found'
  | 'method_not_allowed'
  /** npm start: a request for a host name it does not answer for (DNS rebinding); see ALLOWED_HOSTS. */
  | 'host_not_allowed'
  | ConflictCode;

/** A request that conflicts with the conversation's state (409). */
type ConflictCode = 'conversation_busy' | 'turn_in_progress' | 'approval_not_pending' | 'approval_expired';

export class InputError<Code extends InputErrorCode = InputErrorCode> extends AgentError<Code> {}

export class NotFoundError extends InputError<'conversation_not_found' | 'route_not_found' | 'note_not_found' | 'memory_not_enabled' | 'turn_not_found' | 'trace_not_found' | 'file_not_found' | 'files_not_enabled' | 'connection_server_unknown'> {}

/** A route exists, but not for this method; `allow` lists the methods it takes. */
export class MethodNotAllowedError extends InputError<'method_not_allowed'> {
  readonly allow: string;

  constructor(message: string, allow: string) {
    super('method_not_allowed', message);
    this.allow = allow;
  }
}

/**
 * The conversation's state does not allow the request now: another turn is running, this request's
 * turn still is, or the approvals it decides are not (or no longer) pending.
 */
export class ConflictError extends InputError<ConflictCode> {
  /** Seconds after which a retry may succeed (a claim's lease running out), sent as Retry-After. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ConflictCode, message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(code, message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** A limit of agent.yml's `limits` refuses the request (429). */
export type LimitCode = 'budget_exhausted' | 'too_many_turns';

/**
 * The caller reached a limit: a token budget is spent, or the owner already runs as many turns as
 * it may. Nothing was carried out; the message says which limit and when a retry can succeed.
 */
export class LimitError extends AgentError<LimitCode> {
  /** Seconds after which a retry may succeed, sent as Retry-After; absent when waiting does not help. */
  readonly retryAfterSeconds: number | undefined;
  /** What the error body carries besides code and message: the limit, its value, when it resets. */
  readonly details: Readonly<Record<string, string | number>>;

  constructor(code: LimitCode, message: string, options: { details: Record<string, string | number>; retryAfterSeconds?: number; cause?: unknown }) {
    super(code, message, options);
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/**
 * A token budget ran out. Thrown by the turn's model before a call it would not allow: a turn that
 * already did something stops with `budget_exhausted`; one that did nothing yet is refused (429).
 */
export class BudgetExhaustedError extends LimitError {
  readonly exhaustion: BudgetExhaustion;

  constructor(exhaustion: BudgetExhaustion, now: number) {
    const resetsInSeconds = exhaustion.resetsAt === undefined ? undefined : Math.max(1, Math.ceil((Date.parse(exhaustion.resetsAt) - now) / 1000));
    super('budget_exhausted', `The token budget is spent: ${exhaustionText(exhaustion)}.`, {
      details: { ...exhaustion },
      ...(resetsInSeconds === undefined ? {} : { retryAfterSeconds: resetsInSeconds }),
    });
    this.exhaustion = exhaustion;
  }
}

/** No model endpoint is configured: the service runs, but cannot answer questions. */
export class ModelNotConfiguredError extends AgentError<'model_not_configured'> {
  constructor(message: string = MODEL_NOT_CONFIGURED) {
    super('model_not_configured', message);
  }
}

/** What a question gets when no model is configured (503), and what `npm start` prints. */
export const MODEL_NOT_CONFIGURED =
  'No language model is configured. Set OPENAI_API_KEY for OpenAI (and optionally LLM_MODEL), or point OPENAI_BASE_URL at any OpenAI-compatible endpoint, e.g. OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=qwen2.5 for Ollama or OPENAI_BASE_URL=http://localhost:8000/v1 for vLLM, then restart the service. Deployed on AWS: store the key in the model API key secret of the stack (output ModelApiKeySecretArn), or set modelBaseUrl for an endpoint that needs none.';

export type ModelErrorCode =
  | 'model_unavailable'
  | 'model_rate_limited'
  | 'model_quota_exceeded'
  | 'model_auth_failed'
  | 'model_rejected_request'
  | 'model_timeout'
  | 'model_aborted'
  | 'model_bad_response';

/**
 * The model endpoint failed (after retries) or answered with something unusable. The message is the
 * service's own, shown to callers and stored with a failed turn; what the provider said (its error
 * text, which may name internal hosts) is the `detail`, for the log only.
 */
export class ModelError extends AgentError<ModelErrorCode> {
  /** True when the model did not answer in time. */
  readonly timeout: boolean;
  /** The provider's own words or the endpoint's host: logged, never shown to a caller. */
  readonly detail: string | undefined;

  constructor(code: ModelErrorCode, message: string, options?: { cause?: unknown; timeout?: boolean; detail?: string }) {
    super(code, message, options);
    this.timeout = options?.timeout ?? false;
    this.detail = options?.detail;
  }
}

export type StoreErrorCode =
  /** DynamoDB did not answer, or refused (nothing of this turn ran, or it is stored). */
  | 'store_unavailable'
  /** Even with every tool output cut, the turn does not fit in an item. */
  | 'turn_too_large'
  /** Tools ran, and the turn could not be stored: the next request shows it as interrupted. */
  | 'turn_not_stored'
  /** A stored item this code cannot read (another version, or damaged). */
  | 'invalid_stored_item'
  | 'unsupported_item_version';

/** The conversation store failed. */
export class StoreError extends AgentError<StoreErrorCode> {}

/** A turn's work was not lost but its end could not be written: tools ran, the store failed. */
export class TurnNotStoredError extends StoreError {
  /** The tools that ran in this turn (names as the model called them). */
  readonly toolsRun: string[];

  constructor(message: string, toolsRun: string[], options?: { cause?: unknown }) {
    super('turn_not_stored', message, options);
    this.toolsRun = toolsRun;
  }
}

/**
 * A conditional write found the turn not as expected: created by another request, taken over, or
 * gone. Never shown to a caller as is: the agent turns it into a 409 or a 503 (lib/agent).
 */
export class TurnTakenError extends Error {
  /** What the turn holds now, when it still exists. */
  readonly current: { requestIds: string[]; claimId: string; status: string; leaseExpiresAt?: number } | undefined;

  constructor(message: string, current: TurnTakenError['current'], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TurnTakenError';
    this.current = current;
  }
}

/** A bug: the service refuses to go on rather than store or send something broken. */
export class InternalError extends AgentError<'internal_error'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal_error', message, options);
  }
}

/** An error's message; one without (OAuth errors whose server gave no description) is named by its code. */
export const errorMessage = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  if (error.message) return error.message;
  const code = (error as { errorCode?: unknown; code?: unknown }).errorCode ?? (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.name}: ${code}` : error.name;
};
