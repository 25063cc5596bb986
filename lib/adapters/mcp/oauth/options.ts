/**
 * What the OAuth client needs to know of one server's `oauth` block. Declared here, not taken from
 * lib/config: the adapter reads no agent.yml; the composition root passes it the validated block,
 * and TypeScript checks there that the schema's output still fits these fields.
 */

/** RFC 9449 DPoP: `auto` when the authorization server offers it, `required` always, `off` never (dpop.ts). */
export type DpopMode = 'auto' | 'required' | 'off';

/** Signing algorithms of a private key JWT (RFC 7523) that signed-jwt.ts knows keys for. */
export type SigningAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

export interface OAuthOptions {
  /**
   * `authorization_code`: a person authorizes once; `client_credentials`: machine to machine;
   * `jwt-bearer`: machine to machine with a JWT the platform issued (workload identity, RFC 7523).
   */
  grant: 'authorization_code' | 'client_credentials' | 'jwt-bearer';
  /** jwt-bearer: the file holding the workload's JWT, read again at every token request. */
  assertionFile?: string;
  /** RFC 9449 DPoP-bound tokens: `auto` when the authorization server supports them (dpop.ts). */
  dpop: DpopMode;
  /** A pre-registered client; without it, a client metadata document or dynamic registration. */
  clientId?: string;
  clientSecret?: string;
  /** PEM (PKCS#8) for private_key_jwt. */
  privateKey?: string;
  privateKeyAlgorithm: SigningAlgorithm;
  /** The `kid` header of the client assertion. */
  keyId?: string;
  /** Chosen from the authorization server's metadata when absent. */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** Requested as they are; absent, the challenge and the metadata decide. */
  scopes?: readonly string[];
  /** An HTTPS URL serving this client's metadata document, used as client_id where supported. */
  clientMetadataUrl?: string;
  /** Where the authorization server sends the person back. */
  redirectUrl: string;
  clientName: string;
  /** The issuer the client credentials belong to: they are never presented to another one. */
  authorizationServer?: string;
  /** An access token is renewed this long before it expires. */
  refreshBeforeExpirySeconds: number;
}
