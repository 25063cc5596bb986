/**
 * Which scope to ask for, following the MCP specification's scope selection strategy:
 *
 *   configured `scopes` ─┐
 *   else the 401's WWW-Authenticate scope ─┼─▶ ∪ the scope a 403 step-up asked for ─▶ + offline_access
 *   else the resource's scopes_supported ──┘       (previous grant included, SEP-2350)   (when the
 *   else none: the parameter is left out                                                  server offers it)
 *
 * offline_access is added for authorization-code logins only, and only when the authorization
 * server lists it: the service runs unattended, so it needs the refresh token that scope brings.
 */

export interface ScopeSources {
  grant: 'authorization_code' | 'client_credentials' | 'jwt-bearer';
  configured?: readonly string[] | undefined;
  challenge?: string | undefined;
  resourceScopes?: readonly string[] | undefined;
  /** The step-up scope the server asked for (already including what had been granted). */
  required?: string | undefined;
  authorizationServerScopes?: readonly string[] | undefined;
}

export function selectScope(sources: ScopeSources): string | undefined {
  const base = sources.configured?.length
    ? sources.configured
    : sources.challenge
      ? words(sources.challenge)
      : (sources.resourceScopes ?? []);
  let chosen = union(base, words(sources.required));
  if (sources.grant === 'authorization_code' && chosen.length > 0 && sources.authorizationServerScopes?.includes('offline_access')) {
    chosen = union(chosen, ['offline_access']);
  }
  return chosen.length > 0 ? chosen.join(' ') : undefined;
}

/** Scope words, in order, without repeats. */
export function words(scope: string | undefined): string[] {
  return union(scope?.split(/\s+/).filter(Boolean) ?? [], []);
}

export function union(first: readonly string[], second: readonly string[]): string[] {
  return [...new Set([...first, ...second])];
}

/** True when every word of `wanted` is in `granted`. */
export function covers(granted: string | undefined, wanted: string | undefined): boolean {
  const have = new Set(words(granted));
  return words(wanted).every((word) => have.has(word));
}
