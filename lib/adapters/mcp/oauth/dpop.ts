/**
 * DPoP-bound tokens (RFC 9449) for one server, as a wrapper around the fetch its OAuth flows and
 * MCP requests go through:
 *
 *   token request (POST, a form with grant_type) ─▶ + DPoP proof (no ath), nonce of that origin
 *        400 use_dpop_nonce + DPoP-Nonce ─▶ sent once more with the nonce
 *   request presenting a DPoP-bound token ────────▶ Authorization: DPoP <token> + proof with ath
 *        401 WWW-Authenticate: DPoP error="use_dpop_nonce" + DPoP-Nonce ─▶ sent once more
 *
 * The SDK knows nothing of DPoP: it sends `Bearer <token>`, which is rewritten here when the stored
 * token's token_type is DPoP. Each grant has its own key pair, kept in the token store with the
 * tokens it is bound to (a refresh must prove the same key), so every process can use them.
 *
 * When: `oauth.dpop: auto` (the default) when the authorization server lists ES256 in
 * dpop_signing_alg_values_supported; `required` always, and a token that comes back unbound is
 * refused; `off` never.
 *
 * Loaded as `#mcp-oauth-dpop`: Lambda bundles of a configuration without any `oauth` block leave it
 * out (functions/substitutes/without-mcp-oauth.ts).
 */
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { DPOP_ALGORITHM, dpopProof, generateDpopKey, type DpopKey } from './dpop-proof.ts';
import { McpOAuthError } from './errors.ts';
import type { DpopMode } from './options.ts';

/** What the binding reads of its provider. */
export interface DpopSource {
  /** The authorization server's metadata, once discovered. */
  authorizationServerMetadata(): Readonly<Record<string, unknown>> | undefined;
  /** The stored tokens and their key; read from the store again when `presented` is not the token in hand. */
  stored(presented?: string): Promise<{ tokens?: OAuthTokens; dpopKey?: DpopKey } | undefined>;
  /** A login: its tokens get a key of their own, whatever is stored. */
  readonly startsAfresh: boolean;
}

export class DpopBinding {
  /**
   * RFC 9449 §8-9: each server's latest nonce, by role and origin: the authorization server's and
   * the resource server's are their own, even where both share a host.
   */
  private readonly nonces = new Map<string, string>();
  /** The key of the latest token request, kept with the tokens it brings. */
  private requestKey: DpopKey | undefined;
  private newKey: DpopKey | undefined;
  private readonly server: string;
  private readonly mode: DpopMode;
  private readonly source: DpopSource;

  constructor(server: string, mode: DpopMode, source: DpopSource) {
    this.server = server;
    this.mode = mode;
    this.source = source;
  }

  /** The key to store with `tokens`: the one their request proved, when they are DPoP-bound. */
  keyFor(tokens: OAuthTokens): DpopKey | undefined {
    return isDpopToken(tokens) ? this.requestKey : undefined;
  }

  wrap(fetch: FetchLike): FetchLike {
    if (this.mode === 'off') return fetch;
    return async (input, init) => {
      if (isTokenRequest(init) && this.appliesToTokenRequests()) return this.tokenRequest(fetch, input, init);
      const presented = /^Bearer (.+)$/i.exec(new Headers(init?.headers).get('authorization') ?? '')?.[1];
      const key = presented === undefined ? undefined : await this.keyForAccessToken(presented);
      if (key === undefined) return fetch(input, init);
      return this.resourceRequest(fetch, input, init ?? {}, presented!, key);
    };
  }

  private async tokenRequest(fetch: FetchLike, input: string | URL, init: RequestInit): Promise<Response> {
    const key = await this.keyForTokenRequest();
    this.requestKey = key;
    const response = await this.sendWithNonceRetry(fetch, input, init, key, undefined, isAuthorizationServerNonceError);
    if (this.mode === 'required' && response.ok) {
      const tokenType = await response.clone().json().then((body) => (body as { token_type?: unknown } | null)?.token_type, () => undefined);
      if (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'dpop') {
        await response.body?.cancel().catch(() => undefined);
        throw this.unavailable(`the authorization server issued a ${String(tokenType)} token, not a DPoP-bound one`);
      }
    }
    return response;
  }

  private resourceRequest(fetch: FetchLike, input: string | URL, init: RequestInit, accessToken: string, key: DpopKey): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('authorization', `DPoP ${accessToken}`);
    return this.sendWithNonceRetry(fetch, input, { ...init, headers }, key, accessToken, isResourceServerNonceError);
  }

  /** A fresh proof per request; a server's nonce challenge is answered once, never in a loop. */
  private async sendWithNonceRetry(
    fetch: FetchLike,
    input: string | URL,
    init: RequestInit,
    key: DpopKey,
    accessToken: string | undefined,
    isNonceChallenge: (response: Response) => Promise<boolean>,
  ): Promise<Response> {
    const url = new URL(input);
    const nonceKey = `${accessToken === undefined ? 'token endpoint' : 'resource'} ${url.origin}`;
    const send = async () => {
      const headers = new Headers(init.headers);
      const nonce = this.nonces.get(nonceKey);
      headers.set('dpop', dpopProof(key, { method: init.method ?? 'GET', url, ...(accessToken === undefined ? {} : { accessToken }), ...(nonce === undefined ? {} : { nonce }) }));
      const response = await fetch(input, { ...init, headers });
      const offered = response.headers.get('dpop-nonce');
      if (offered) this.nonces.set(nonceKey, offered);
      return { response, offered };
    };
    const first = await send();
    if (!first.offered || !(await isNonceChallenge(first.response))) return first.response;
    await first.response.body?.cancel().catch(() => undefined);
    return (await send()).response;
  }

  private appliesToTokenRequests(): boolean {
    const listed = this.source.authorizationServerMetadata()?.dpop_signing_alg_values_supported;
    const supported = Array.isArray(listed) && listed.includes(DPOP_ALGORITHM);
    if (this.mode === 'auto') return supported;
    // required: sent even to a server that does not say (it may still bind); refused where it says it cannot.
    if (Array.isArray(listed) && !supported) {
      throw this.unavailable(`the authorization server accepts DPoP proofs signed with ${listed.join(', ') || 'nothing'}, not ${DPOP_ALGORITHM}`);
    }
    return true;
  }

  /**
   * The stored key, so a refresh proves the key its grant was bound to (RFC 9449 §5); a login, or
   * a grant with none yet, gets a new pair (one per binding: a nonce retry proves the same key).
   */
  private async keyForTokenRequest(): Promise<DpopKey> {
    const stored = this.source.startsAfresh ? undefined : (await this.source.stored())?.dpopKey;
    return stored ?? (this.newKey ??= generateDpopKey());
  }

  private async keyForAccessToken(presented: string): Promise<DpopKey | undefined> {
    const stored = await this.source.stored(presented);
    if (stored?.tokens?.access_token !== presented || !isDpopToken(stored.tokens)) return undefined;
    return stored.dpopKey;
  }

  private unavailable(reason: string): McpOAuthError {
    return new McpOAuthError('mcp_oauth_dpop_unavailable', this.server, `MCP server "${this.server}" requires DPoP-bound tokens (oauth.dpop: required), but ${reason}.`);
  }
}

export function isDpopToken(tokens: OAuthTokens | undefined): boolean {
  return tokens?.token_type?.toLowerCase() === 'dpop';
}

/** The SDK's token requests: a POSTed form with a grant_type (authorization code, refresh, client credentials, ...). */
function isTokenRequest(init: RequestInit | undefined): init is RequestInit & { body: URLSearchParams } {
  return init?.method === 'POST' && init.body instanceof URLSearchParams && init.body.has('grant_type');
}

/** RFC 9449 §8: the token endpoint's 400 with error use_dpop_nonce. */
async function isAuthorizationServerNonceError(response: Response): Promise<boolean> {
  if (response.status !== 400) return false;
  const body = await response.clone().json().catch(() => undefined) as { error?: unknown } | undefined;
  return body?.error === 'use_dpop_nonce';
}

/** RFC 9449 §9: the resource server's 401 with `WWW-Authenticate: DPoP error="use_dpop_nonce"`. */
async function isResourceServerNonceError(response: Response): Promise<boolean> {
  return response.status === 401 && /\bDPoP\b[^]*\berror="?use_dpop_nonce"?/i.test(response.headers.get('www-authenticate') ?? '');
}
