/**
 * DPoP proofs (RFC 9449 §4): a JWT signed with the client's own key, whose header carries the
 * public half, made fresh for every HTTP request:
 *
 *   header  { typ: "dpop+jwt", alg: "ES256", jwk: <public key> }
 *   payload { jti, htm: <method>, htu: <URL without query and fragment>, iat,
 *             ath: <SHA-256 of the access token, when one is presented>, nonce: <server's, if any> }
 *
 * One algorithm, ES256: every authorization server that supports DPoP accepts it, and a P-256 key
 * is small enough to keep beside the tokens it is bound to.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import { signJwt } from './signed-jwt.ts';

export const DPOP_ALGORITHM = 'ES256';

/** A DPoP key as the token store keeps it, beside the tokens bound to it. Secret: never logged. */
export interface DpopKey {
  algorithm: typeof DPOP_ALGORITHM;
  /** The private JWK (with `d`): the store is the only place it is written. */
  privateJwk: JsonWebKey;
}

export interface ProofRequest {
  method: string;
  url: string | URL;
  /** The access token the request presents: its hash becomes `ath`. */
  accessToken?: string;
  /** The last nonce the server handed out (DPoP-Nonce). */
  nonce?: string;
  now?: number;
}

export function generateDpopKey(): DpopKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { algorithm: DPOP_ALGORITHM, privateJwk: privateKey.export({ format: 'jwk' }) };
}

/** The public half: what the proof's header shows. Built field by field, so `d` can never slip in. */
export function publicJwk(key: DpopKey): JsonWebKey {
  const { kty, crv, x, y } = key.privateJwk;
  return { kty, crv, x, y };
}

export function dpopProof(key: DpopKey, request: ProofRequest): string {
  const issuedAt = Math.floor((request.now ?? Date.now()) / 1000);
  return signJwt(
    { typ: 'dpop+jwt', alg: key.algorithm, jwk: publicJwk(key) },
    {
      jti: randomUUID(),
      htm: request.method.toUpperCase(),
      htu: targetUri(request.url),
      iat: issuedAt,
      ...(request.accessToken === undefined ? {} : { ath: accessTokenHash(request.accessToken) }),
      ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    },
    privateKeyOf(key),
    key.algorithm,
  );
}

/** RFC 9449 §4.2: the request's URI without its query and fragment. */
export function targetUri(url: string | URL): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** RFC 9449 §4.2 `ath`: base64url of the SHA-256 of the token's ASCII. */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/** Imported once per stored key: a proof is made for every request. */
const imported = new WeakMap<JsonWebKey, KeyObject>();

function privateKeyOf(key: DpopKey): KeyObject {
  let privateKey = imported.get(key.privateJwk);
  if (privateKey === undefined) {
    privateKey = createPrivateKey({ key: key.privateJwk, format: 'jwk' });
    imported.set(key.privateJwk, privateKey);
  }
  return privateKey;
}
