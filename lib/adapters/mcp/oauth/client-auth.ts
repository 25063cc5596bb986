/**
 * How a pre-registered client proves itself at the token endpoint (OAuth 2.1 §2.4, RFC 7523):
 * client_secret_basic, client_secret_post, private_key_jwt or none. The method is the configured
 * one, else private_key_jwt when there is a private key, else the best the authorization server
 * lists (basic before post; RFC 8414 makes basic the default when it lists none).
 *
 * Dynamically registered and metadata-document clients are left to the SDK, which reads the
 * method the registration returned.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import type { AddClientAuthentication } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthOptions, SigningAlgorithm, TokenEndpointAuthMethod } from './options.ts';
import { importPkcs8, signJwt } from './signed-jwt.ts';

/** How long a client assertion is valid: long enough for clock skew, short enough to be useless if seen. */
const ASSERTION_LIFETIME_SECONDS = 300;
const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export function clientAuthentication(settings: OAuthOptions): AddClientAuthentication | undefined {
  const clientId = settings.clientId;
  if (clientId === undefined) return undefined;
  const signingKey = settings.privateKey === undefined ? undefined : lazyKey(settings.privateKey, settings.privateKeyAlgorithm);
  return async (headers, params, tokenUrl, metadata) => {
    const method = chooseMethod(settings, metadata);
    switch (method) {
      case 'private_key_jwt': {
        const key = await signingKey!();
        // RFC 7523bis: the audience is the authorization server's issuer identifier.
        const audience = metadata?.issuer ?? String(tokenUrl);
        const now = Math.floor(Date.now() / 1000);
        const assertion = signJwt(
          { alg: settings.privateKeyAlgorithm, typ: 'JWT', ...(settings.keyId ? { kid: settings.keyId } : {}) },
          { iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + ASSERTION_LIFETIME_SECONDS, jti: randomUUID() },
          key,
          settings.privateKeyAlgorithm,
        );
        params.set('client_id', clientId);
        params.set('client_assertion_type', JWT_BEARER_ASSERTION);
        params.set('client_assertion', assertion);
        return;
      }
      case 'client_secret_basic':
        // RFC 6749 §2.3.1: both parts are form-encoded before they are joined, so a ":" survives.
        headers.set('Authorization', `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(settings.clientSecret ?? '')}`).toString('base64')}`);
        return;
      case 'client_secret_post':
        params.set('client_id', clientId);
        params.set('client_secret', settings.clientSecret ?? '');
        return;
      case 'none':
        params.set('client_id', clientId);
        return;
    }
  };
}

export function chooseMethod(settings: OAuthOptions, metadata: AuthorizationServerMetadata | undefined): TokenEndpointAuthMethod {
  if (settings.tokenEndpointAuthMethod) return settings.tokenEndpointAuthMethod;
  if (settings.privateKey !== undefined) return 'private_key_jwt';
  if (settings.clientSecret === undefined) return 'none';
  const supported = metadata?.token_endpoint_auth_methods_supported;
  if (!supported || supported.length === 0 || supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

/** application/x-www-form-urlencoded, as RFC 6749 Appendix B asks for the Basic credentials. */
function formEncode(value: string): string {
  return new URLSearchParams({ value }).toString().slice('value='.length);
}

/** The key is parsed once, on first use: a bad key fails the token request with a clear message. */
function lazyKey(pem: string, algorithm: SigningAlgorithm): () => Promise<KeyObject> {
  let key: KeyObject | undefined;
  return async () => {
    try {
      // Keys kept in one-line environment variables carry their line breaks as "\n".
      key ??= importPkcs8(pem.replace(/\\n/g, '\n').trim(), algorithm);
    } catch (error) {
      throw new Error(`the OAuth private key is not a PKCS#8 PEM key for ${algorithm} (${(error as Error).message})`, { cause: error });
    }
    return key;
  };
}
