/**
 * A local OpenID Connect provider for tests of AUTH_MODE=oidc: its discovery document and JWKS
 * served over HTTP as Okta, Entra ID or Keycloak serve theirs, and tokens signed with jose by the
 * key it publishes. `rotateKey()` replaces the published key (a provider's key rotation); `sign`
 * can also forge what a provider never issues (an unsigned token, an HS256 one, another key's).
 */
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { listenLocally } from './listen-locally.ts';

export interface OidcProvider {
  /** http://127.0.0.1:<port>: the `iss` of its tokens. */
  issuer: string;
  /** How many times the JWKS was fetched (a verifier's cache is seen here). */
  jwksFetches(): number;
  /** A token of the published key: `sub`, `aud` (default `audience`), `iss`, `iat` and `exp` (1 h) filled in unless given. */
  sign(claims: JWTPayload & { sub: string }, options?: SignOptions): Promise<string>;
  /** A new key replaces the published one (new key id); tokens of the old key no longer verify. */
  rotateKey(): Promise<void>;
  close(): Promise<void>;
}

export interface SignOptions {
  /** Lifetime in seconds from now (negative: already expired). Default 3600. */
  expiresInSeconds?: number;
  /** Sign with a key the provider does not publish (its own key id), as a forger would. */
  unpublishedKey?: boolean;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

let keyCount = 0;

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = `test-key-${++keyCount}`;
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startOidcProvider(options: { audience: string }): Promise<OidcProvider> {
  let current = await newKey();
  let fetches = 0;
  let issuer = '';
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/.well-known/openid-configuration') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      }));
      return;
    }
    if (path === '/jwks') {
      fetches += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [current.publicJwk] }));
      return;
    }
    response.writeHead(404).end();
  });
  const listening = await listenLocally(server);
  issuer = listening.baseUrl;
  return {
    issuer,
    jwksFetches: () => fetches,
    async sign(claims, signOptions = {}) {
      const key = signOptions.unpublishedKey ? await newKey() : current;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, aud: options.audience, iat: now, exp: now + (signOptions.expiresInSeconds ?? 3600), ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
        .sign(key.privateKey);
    },
    async rotateKey() {
      current = await newKey();
    },
    close: listening.close,
  };
}

/** A JWT with `alg: none` and no signature: what no verifier may take. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** A JWT signed with HS256 under `secret` (an attacker would use the public JWKS as the secret). */
export async function hs256Token(claims: JWTPayload, secret: string): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'test-key-1' }).sign(new TextEncoder().encode(secret));
}
