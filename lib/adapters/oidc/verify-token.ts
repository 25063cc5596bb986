/**
 * Verifies an OpenID Connect provider's JWT (AUTH_MODE=oidc): the one verifier of the deployed
 * Lambda authorizer (functions/oidc-authorizer.ts) and of `npm start`, so both accept and refuse
 * the same tokens.
 *
 * The provider's keys come from its discovery document (`<issuer>/.well-known/openid-configuration`,
 * whose `issuer` must be the configured one) and its JWKS, kept for the life of the process (a warm
 * Lambda reuses them) and fetched again when a token names a key the set lacks: a provider that
 * rotates its keys is followed at once, at most once per cool-down, so tokens with made-up key ids
 * cannot make the service hammer the provider. Only asymmetric signatures are taken (never `none`,
 * never HS*: the JWKS is public, so a shared-secret signature would prove nothing).
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { InputError } from '../../core/errors.ts';

export interface OidcSettings {
  /** The provider's issuer URL, exactly as its tokens' `iss` claim (Auth0's ends with a slash). */
  issuer: string;
  /** What the tokens' `aud` must contain: the client id (ID tokens) or the API's audience (access tokens). */
  audience: string;
}

export interface VerifiedCaller {
  /** The token's `sub`: the conversation owner. */
  subject: string;
  /** Every claim of the token (groups, tenant… become the policy principal's attributes). */
  claims: JWTPayload;
}

/** A token that is missing, malformed, forged, expired, or for another issuer or audience: a 401. The message is the reason, never the token. */
export class TokenRejected extends InputError<'invalid_token'> {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('invalid_token', reason, options);
  }
}

/** Signatures of keys a provider publishes (RSA, RSA-PSS, ECDSA, EdDSA). */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** Clocks of the provider and of this service may differ by this much (exp, nbf, iat). */
const CLOCK_TOLERANCE_SECONDS = 60;
/** At most one JWKS fetch per this long for a key id the set lacks (jose's default). */
const DEFAULT_REFETCH_COOLDOWN_MS = 30_000;

export interface VerifierOptions {
  /** How long after a JWKS fetch an unknown key id may not trigger another (tests shorten it). */
  refetchCooldownMs?: number;
}

export type VerifyToken = (token: string) => Promise<VerifiedCaller>;

export function oidcTokenVerifier(settings: OidcSettings, options: VerifierOptions = {}): VerifyToken {
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keySet = () => {
    if (keys) return keys;
    const discovered = discoverKeySet(settings.issuer, options.refetchCooldownMs ?? DEFAULT_REFETCH_COOLDOWN_MS);
    // A provider that could not be reached is asked again by the next request, not never.
    discovered.catch(() => { if (keys === discovered) keys = undefined; });
    keys = discovered;
    return discovered;
  };
  return async (token) => {
    if (!token) throw new TokenRejected('no bearer token');
    const jwks = await keySet();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      throw rejectionOf(error);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new TokenRejected('the token has no "sub" claim');
    return { subject: payload.sub, claims: payload };
  };
}

async function discoverKeySet(issuer: string, cooldownDuration: number) {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`OIDC discovery at ${url} answered HTTP ${response.status}`);
  const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  // OpenID Connect Discovery 4.3: the document must name the issuer it was fetched for.
  if (document.issuer !== issuer) throw new Error(`OIDC discovery at ${url} names the issuer ${JSON.stringify(document.issuer)}, not ${issuer}`);
  if (typeof document.jwks_uri !== 'string') throw new Error(`OIDC discovery at ${url} has no jwks_uri`);
  const jwksUrl = new URL(document.jwks_uri);
  if (jwksUrl.protocol !== 'https:' && new URL(issuer).protocol === 'https:') throw new Error(`OIDC discovery at ${url} names a jwks_uri that is not https`);
  return createRemoteJWKSet(jwksUrl, { cooldownDuration, timeoutDuration: 5_000 });
}

/** Why a token is refused, in jose's words (which never quote the token); a failure to reach the provider stays an error. */
function rejectionOf(error: unknown): Error {
  const cause = { cause: error };
  if (error instanceof errors.JWTExpired) return new TokenRejected('the token has expired', cause);
  if (error instanceof errors.JWTClaimValidationFailed) return new TokenRejected(`the token's claims do not pass: ${error.message}`, cause);
  if (error instanceof errors.JOSEAlgNotAllowed) return new TokenRejected('the token is signed with an algorithm that is not allowed', cause);
  if (error instanceof errors.JWKSNoMatchingKey) return new TokenRejected('no key of the issuer matches the token', cause);
  if (error instanceof errors.JWKSMultipleMatchingKeys) return new TokenRejected('the token names no key id and the issuer has several keys', cause);
  if (error instanceof errors.JWSSignatureVerificationFailed) return new TokenRejected('the token\'s signature does not verify', cause);
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) {
    return new TokenRejected(`the token is not a valid signed JWT: ${error.message}`, cause);
  }
  return error instanceof Error ? error : new Error(String(error));
}
