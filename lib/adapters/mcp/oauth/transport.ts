/**
 * What OAuth adds to a Streamable HTTP or SSE transport (connect.ts asks for it in one place):
 * the SDK's `authProvider`, and the transport's fetch watched for the server's challenges.
 *
 * The SDK answers a 401 itself (auth(), then one retry) but cannot know what this service needs
 * around it: that the store may hold a newer token from another process or a new login (then the
 * request is retried with it, before anything is refreshed), and that a 403 insufficient_scope on
 * an authorization-code grant needs a person (so it stops with the login command instead of
 * refreshing, which cannot add scope).
 */
import { extractWWWAuthenticateParams, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerOAuthProvider } from './provider.ts';

export interface McpServerAuthorization {
  readonly provider: ServerOAuthProvider;
  forTransport(fetch: FetchLike): { authProvider: OAuthClientProvider; fetch: FetchLike };
}

export function serverAuthorization(provider: ServerOAuthProvider): McpServerAuthorization {
  return {
    provider,
    // The transport's fetch carries its MCP requests and the SDK's OAuth requests alike: each is checked.
    forTransport: (fetch) => ({ authProvider: provider, fetch: watchChallenges(provider, provider.outgoing(fetch)) }),
  };
}

function watchChallenges(provider: ServerOAuthProvider, fetch: FetchLike): FetchLike {
  const watched = async (input: string | URL, init: RequestInit | undefined, retried: boolean): Promise<Response> => {
    const response = await fetch(input, init);
    if (response.status !== 401 && response.status !== 403) return response;
    const challenge = extractWWWAuthenticateParams(response);
    if (response.status === 403 && challenge.error !== 'insufficient_scope') return response;
    // Only the MCP server's own answers to a request that carried a token (never the token endpoint's).
    const used = new Headers(init?.headers).get('authorization')?.match(/^Bearer (.+)$/i)?.[1];
    const newer = used === undefined || retried ? undefined : await provider.newerAccessToken(used);
    if (newer !== undefined) {
      // Retrying with the stored token costs nothing, where a refresh could race another process's.
      await response.body?.cancel().catch(() => undefined);
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${newer}`);
      return watched(input, { ...init, headers }, true);
    }
    if (response.status === 401) {
      provider.unauthorized(challenge.scope);
      return response;
    }
    try {
      await provider.insufficientScope(challenge.scope);
    } catch (error) {
      await response.body?.cancel().catch(() => undefined);
      throw error;
    }
    return response;
  };
  return (input, init) => watched(input, init, false);
}
