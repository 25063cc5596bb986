/**
 * A signed JWT (RFC 7515 compact form) with Node's own crypto, for private_key_jwt client
 * assertions. Reading PKCS#8 keys and signing take a few lines here; `jose` did the same and was
 * 16 KB of every Lambda bundle. The checks are jose's: a PKCS#8 PEM, a key of the algorithm's
 * type and curve, RSA keys of at least 2048 bits.
 */
import { constants, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { SigningAlgorithm } from './options.ts';

/** What each algorithm needs of the key: its type, and for ECDSA its curve. */
const KEY_TYPES: Record<SigningAlgorithm, { type: string; curve?: string }> = {
  RS256: { type: 'rsa' },
  RS384: { type: 'rsa' },
  RS512: { type: 'rsa' },
  PS256: { type: 'rsa' },
  PS384: { type: 'rsa' },
  PS512: { type: 'rsa' },
  ES256: { type: 'ec', curve: 'prime256v1' },
  ES384: { type: 'ec', curve: 'secp384r1' },
  ES512: { type: 'ec', curve: 'secp521r1' },
  EdDSA: { type: 'ed25519' },
};

const MIN_RSA_BITS = 2048;

/** A PKCS#8 PEM private key for `algorithm`; throws saying what does not fit. */
export function importPkcs8(pem: string, algorithm: SigningAlgorithm): KeyObject {
  if (!pem.startsWith('-----BEGIN PRIVATE KEY-----')) throw new TypeError('"pkcs8" must be PKCS#8 formatted string');
  const key = createPrivateKey({ key: pem, format: 'pem' });
  const expected = KEY_TYPES[algorithm];
  if (key.asymmetricKeyType !== expected.type || (expected.curve !== undefined && key.asymmetricKeyDetails?.namedCurve !== expected.curve)) {
    throw new TypeError(`the key is ${key.asymmetricKeyType}${key.asymmetricKeyDetails?.namedCurve ? ` (${key.asymmetricKeyDetails.namedCurve})` : ''}, not a key for ${algorithm}`);
  }
  if (expected.type === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) {
    throw new TypeError(`${algorithm} requires key modulusLength to be ${MIN_RSA_BITS} bits or larger`);
  }
  return key;
}

/** `header.payload.signature`, each part base64url. */
export function signJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject, algorithm: SigningAlgorithm): string {
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  const data = Buffer.from(input);
  let signature: Buffer;
  if (algorithm === 'EdDSA') {
    signature = sign(null, data, key);
  } else {
    const hash = `sha${algorithm.slice(2)}`;
    if (algorithm.startsWith('PS')) signature = sign(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
    // JWS (RFC 7518 §3.4) wants the raw r‖s pair, not the DER that Node gives by default.
    else if (algorithm.startsWith('ES')) signature = sign(hash, data, { key, dsaEncoding: 'ieee-p1363' });
    else signature = sign(hash, data, key);
  }
  return `${input}.${signature.toString('base64url')}`;
}

const base64url = (text: string): string => Buffer.from(text).toString('base64url');
