/**
 * One error root. Subclasses are split by who must act; every error has a stable string `code`
 * and keeps its `cause`. HTTP statuses are decided in one place (lib/http/errors.ts).
 */
export class AgentError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** agent.yml or the environment is wrong: fails the cold start. */
export class ConfigError extends AgentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_config', message, options);
  }
}

/** The caller sent something we cannot accept; the message says what to fix. */
export class InputError extends AgentError {
  readonly status: 400 | 401 | 404 | 405 | 409 | 413 | 415;

  constructor(status: InputError['status'], code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = status;
  }
}

export class NotFoundError extends InputError {
  constructor(code: string, message: string) {
    super(404, code, message);
  }
}

/** A route exists, but not for this method; `allow` lists the methods it takes. */
export class MethodNotAllowedError extends InputError {
  readonly allow: string;

  constructor(message: string, allow: string) {
    super(405, 'method_not_allowed', message);
    this.allow = allow;
  }
}

/** Another turn is running on the conversation, or this request's turn is still in progress. */
export class ConflictError extends InputError {
  constructor(code: 'conversation_busy' | 'turn_in_progress', message: string, options?: { cause?: unknown }) {
    super(409, code, message, options);
  }
}

/** What a question gets when no model is configured (503), and what `npm start` prints. */
export const MODEL_NOT_CONFIGURED =
  'No language model is configured. Set OPENAI_API_KEY for OpenAI (and optionally LLM_MODEL), or point OPENAI_BASE_URL at any OpenAI-compatible endpoint, e.g. OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=qwen2.5 for Ollama or OPENAI_BASE_URL=http://localhost:8000/v1 for vLLM, then restart the service. Deployed on AWS: store the key in the model API key secret of the stack (output ModelApiKeySecretArn), or set modelBaseUrl for an endpoint that needs none.';

/** No model endpoint is configured: the service runs, but cannot answer questions. */
export class ModelNotConfiguredError extends AgentError {
  constructor(message: string = MODEL_NOT_CONFIGURED) {
    super('model_not_configured', message);
  }
}

/** The model endpoint failed (after retries) or answered with something unusable. */
export class ModelError extends AgentError {
  /** True when the model did not answer in time. */
  readonly timeout: boolean;

  constructor(code: string, message: string, options?: { cause?: unknown; timeout?: boolean }) {
    super(code, message, options);
    this.timeout = options?.timeout ?? false;
  }
}

/** The conversation store failed. */
export class StoreError extends AgentError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

export const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
