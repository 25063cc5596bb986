/**
 * OAuth 2.0 Token Exchange (RFC 8693) and the token endpoint request it shares with the jwt-bearer
 * grant (id-jag.ts): the form body, the client's authentication, and the answer read into a token
 * and its expiry, or a refusal that names the endpoint's error and never the tokens sent.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** One exchange: the caller's token for one of the target's audience. */
export interface TokenExchange {
  subjectToken: string;
  /** urn:ietf:params:oauth:token-type:access_token, id_token or jwt. */
  subjectTokenType: string;
  /** access_token for an MCP server; urn:ietf:params:oauth:token-type:id-jag for an identity assertion grant. */
  requestedTokenType: string;
  /** RFC 8707: the MCP server's URL. */
  resource?: string;
  /** A logical name of the target (the authorization server's issuer, for an ID-JAG). */
  audience?: string;
  scopes?: readonly string[];
}

/** The form body of an RFC 8693 request (§2.1). */
export function tokenExchangeParameters(exchange: TokenExchange): URLSearchParams {
  const parameters = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: exchange.subjectToken,
    subject_token_type: exchange.subjectTokenType,
    requested_token_type: exchange.requestedTokenType,
  });
  if (exchange.resource !== undefined) parameters.set('resource', exchange.resource);
  if (exchange.audience !== undefined) parameters.set('audience', exchange.audience);
  if (exchange.scopes && exchange.scopes.length > 0) parameters.set('scope', exchange.scopes.join(' '));
  return parameters;
}

export interface IssuedToken {
  token: string;
  /** Epoch ms; undefined when the endpoint did not say. */
  expiresAt: number | undefined;
  /** RFC 8693's issued_token_type, when the endpoint named one. */
  issuedTokenType: string | undefined;
}

/** The token endpoint said no (an OAuth error response), or answered with something that is not a token. */
export class TokenEndpointRefusal extends Error {
  readonly status: number;
  /** The OAuth error code (invalid_grant, invalid_target, ...), or `invalid_response`. */
  readonly error: string;
  readonly description: string | undefined;

  constructor(status: number, error: string, description: string | undefined) {
    super(`the token endpoint answered ${status} ${error}${description ? `: ${description}` : ''}`);
    this.status = status;
    this.error = error;
    this.description = description;
  }
}

/** What a refusal says: the OAuth error and the endpoint's description. */
export function tokenEndpointRefusalText(refusal: TokenEndpointRefusal): string {
  return `${refusal.error}${refusal.description ? `: ${refusal.description}` : ''} (HTTP ${refusal.status})`;
}

/** Adds the client's credentials to a token request (client-auth.ts's shape, with the endpoint it goes to). */
export type AuthenticateClient = (headers: Headers, parameters: URLSearchParams, endpoint: string) => void | Promise<void>;

/** POSTs a token request; an answer without an access token is a refusal. */
export async function requestToken(endpoint: string, parameters: URLSearchParams, options: { authenticate?: AuthenticateClient; fetch: FetchLike; now: () => number; signal?: AbortSignal }): Promise<IssuedToken> {
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
  await options.authenticate?.(headers, parameters, endpoint);
  const response = await options.fetch(endpoint, { method: 'POST', headers, body: parameters.toString(), ...(options.signal ? { signal: options.signal } : {}) });
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!response.ok || typeof body?.access_token !== 'string') {
    const error = typeof body?.error === 'string' ? body.error : 'invalid_response';
    // The description is the endpoint's words, shortened: it is logged and told to the model.
    const description = typeof body?.error_description === 'string' ? body.error_description.slice(0, 300) : response.ok ? 'no access_token in the answer' : undefined;
    throw new TokenEndpointRefusal(response.status, error, description);
  }
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : typeof body.expires_in === 'string' ? Number(body.expires_in) : undefined;
  return {
    token: body.access_token,
    expiresAt: expiresIn !== undefined && Number.isFinite(expiresIn) ? options.now() + expiresIn * 1000 : undefined,
    issuedTokenType: typeof body.issued_token_type === 'string' ? body.issued_token_type : undefined,
  };
}
