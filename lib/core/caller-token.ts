import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The bearer token the caller presented with its request (AUTH_MODE=cognito or oidc: the token
 * API Gateway's authorizer verified), for MCP servers that act on the caller's behalf
 * (`auth.mode: token-exchange`, `enterprise-managed`): exchanged there for a token of the server's
 * own audience. It lives in memory for the request only: never stored with the turn, queued,
 * logged or traced. The value is a private field, so a log line, a JSON body or a span attribute
 * that takes the object whole shows a placeholder instead.
 */
export class CallerToken {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The token itself: only for the request that exchanges it. */
  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return '[caller token]';
  }

  toString(): string {
    return '[caller token]';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '[caller token]';
  }
}

/**
 * Kept per async call chain, as the trace context is, so an MCP request made deep inside a turn
 * (a tools/call, or the listing that connects) carries the caller's identity without every layer
 * in between passing it, and without it ever entering a value that is stored.
 */
const storage = new AsyncLocalStorage<CallerToken>();

export function withCallerToken<T>(token: CallerToken | undefined, work: () => T): T {
  return token ? storage.run(token, work) : work();
}

/** The caller token of the request under way; undefined in a turn without one (a queued turn, AUTH_MODE=none or iam). */
export function currentCallerToken(): CallerToken | undefined {
  return storage.getStore();
}
