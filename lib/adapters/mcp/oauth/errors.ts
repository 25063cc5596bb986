/**
 * OAuth failures that someone must act on. They surface as a server's status (`/health`), as the
 * text of a failed tool call, or from the login flow; the login codes get HTTP statuses in
 * lib/http/status.ts once a route exposes the flow.
 */
import { AgentError } from '../../../core/errors.ts';

type McpOAuthErrorCode =
  /** No usable token, and only a person can get one: run the login. */
  | 'mcp_authorization_required'
  /** The server refuses the token for lack of a scope it already carries: no login can fix that. */
  | 'mcp_insufficient_scope'
  /** The server is not a remote server with an `oauth` block. */
  | 'mcp_oauth_not_configured'
  /** A callback arrived with no authorization started, a wrong `state`, or too late. */
  | 'mcp_login_not_started'
  | 'mcp_login_state_mismatch'
  | 'mcp_login_expired'
  /** The authorization server answered the callback with an error (the person declined, ...). */
  | 'mcp_login_denied'
  /** The callback's `iss` is not the authorization server the login went to, or is missing where it must be (RFC 9207). */
  | 'mcp_login_issuer_mismatch'
  /** Discovery named a place the flow may not go: plain http, a private or link-local address, another origin. */
  | 'mcp_oauth_destination_refused'
  /** An authorization server's metadata names another issuer, or it is not the one agent.yml names. */
  | 'mcp_oauth_issuer_mismatch'
  /** agent.yml requires DPoP (`dpop: required`) and the authorization server cannot bind tokens to a key. */
  | 'mcp_oauth_dpop_unavailable'
  /** The jwt-bearer grant's workload identity token file is missing, unreadable or holds no JWT. */
  | 'mcp_oauth_assertion_unavailable'

  /** A server that acts on the caller's behalf (auth.mode token-exchange, enterprise-managed), and the turn has no caller token. */
  | 'mcp_caller_token_missing'
  /** The token endpoint (or the identity provider) refused to exchange the caller's token. */
  | 'mcp_token_exchange_refused';

export class McpOAuthError extends AgentError<McpOAuthErrorCode> {
  readonly server: string;

  constructor(code: McpOAuthErrorCode, server: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.server = server;
  }
}

/** The command an operator runs; the one place its spelling lives. */
function loginCommand(server: string): string {
  return `npm run mcp-login -- ${server}`;
}

/** No usable token, and only a person can get one. */
export function authorizationRequired(server: string, storeLocation: string, scope: string | undefined, reason?: string): McpOAuthError {
  return new McpOAuthError(
    'mcp_authorization_required',
    server,
    `MCP server "${server}" needs a person to authorize this service${scope ? ` for scope "${scope}"` : ''}${reason ? ` (${reason})` : ''}: ` +
      `run \`${loginCommand(server)}\` (tokens are kept in ${storeLocation}).`,
  );
}

/** `text` with every known secret (long enough to be one) replaced, before it reaches a log. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return secrets
    .filter((secret): secret is string => typeof secret === 'string' && secret.length >= 8)
    .reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text);
}
