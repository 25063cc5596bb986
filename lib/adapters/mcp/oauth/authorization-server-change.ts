/**
 * An MCP server may move to another authorization server: its protected resource metadata then
 * names the new one (SEP-2352). Whatever the old one issued (the registered client, the tokens,
 * the refresh token) means nothing to the new one and must never be shown to it. The SDK stamps
 * each stored client and token with the authorization server it came from (`issuer`) and skips a
 * stamp that names another; this tells the gateway that such a move happened, so that at run time
 * it stops with a login that says why, instead of registering a client with the new server
 * unattended. The login then registers there (or uses the metadata document) and authorizes anew.
 */

/** The authorization server `stored` was stamped for, when it is not `current` (compared as URLs, one trailing "/" tolerated, as the SDK does). */
export function movedFrom(stored: { issuer?: unknown } | undefined, current: string | undefined): string | undefined {
  const previous = stored?.issuer;
  if (typeof previous !== 'string' || current === undefined) return undefined;
  return normal(previous) === normal(current) ? undefined : previous;
}

/** Why a login is needed, for the operator's message. */
export function moveReason(previous: string, current: string): string {
  return `it now names the authorization server ${current}, and this service's client and tokens came from ${previous}, which are never presented to another one`;
}

function normal(issuer: string): string {
  try {
    return new URL(issuer).href.replace(/\/$/, '');
  } catch {
    return issuer;
  }
}
