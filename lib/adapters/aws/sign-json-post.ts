/**
 * AWS Signature Version 4 for the one request the lean clients send (json-client.ts): a POST of a
 * JSON body to the endpoint's path, no query string, a handful of headers. Written out for that
 * shape with node:crypto, because the general signer (`@smithy/signature-v4`, with the parts of
 * `@smithy/core` it loads) cost several milliseconds of every cold start for work this request
 * never needs (query canonicalisation, presigning, event streams). Every request the tests send
 * through it is checked by test/support/sigv4-check.ts, written separately from the specification,
 * and test/unit/sign-json-post.test.ts compares it with the SDK's signer header by header.
 */
import { createHash, createHmac } from 'node:crypto';

export interface JsonPost {
  /** The endpoint's host as the Host header carries it (with a port that is not the scheme's default). */
  host: string;
  /** The endpoint's path as URL.pathname gives it (already percent-encoded once). */
  path: string;
  /** Every header to send but Host and the signature's own; names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** What a signature is made with: a role's keys, with its session token, or a user's. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Asked before each signature; a chain caches what it found and refreshes it before it expires. */
export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

export interface SigningScope {
  service: string;
  region: string;
}

/** The headers to send with the request (Host left to the transport): the given ones, `x-amz-date`, the session token, `x-amz-content-sha256` and `authorization`. */
export function signJsonPost(request: JsonPost, credentials: AwsCredentials, scope: SigningScope, date: Date): Record<string, string> {
  const amzDate = date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(request.body);
  const headers: Record<string, string> = { ...request.headers, 'x-amz-date': amzDate };
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  // The SDK's signer sends the body's hash too (its applyChecksum default): the same request as before.
  headers['x-amz-content-sha256'] = payloadHash;
  const signed: Record<string, string> = { ...headers, host: request.host };
  const names = Object.keys(signed).sort();
  const canonicalRequest = [
    'POST',
    canonicalPath(request.path),
    '',
    ...names.map((name) => `${name}:${canonicalValue(signed[name]!)}`),
    '',
    names.join(';'),
    payloadHash,
  ].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${credentialScope}\n${sha256Hex(canonicalRequest)}`;
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, day, scope)).update(stringToSign).digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return headers;
}

/** A header's value as it is signed: line breaks as spaces, runs of blanks as one, one blank at either end dropped (the SDK's rule). */
const canonicalValue = (value: string) => value.replace(/[\r\n]/g, ' ').replace(/[ \t]+/g, ' ').replace(/^ | $/g, '');

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The key of a secret for a day, region and service; the last one is kept (it changes once a day). */
let lastKey: { of: string; key: Buffer } | undefined;
function signingKey(secret: string, day: string, scope: SigningScope): Buffer {
  const of = `${secret}\u0000${day}\u0000${scope.region}\u0000${scope.service}`;
  if (lastKey?.of === of) return lastKey.key;
  let key = createHmac('sha256', `AWS4${secret}`).update(day).digest();
  for (const part of [scope.region, scope.service, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  lastKey = { of, key };
  return key;
}

/**
 * Every service but S3 signs the path encoded once more, with `.` and `..` resolved and empty
 * segments dropped: what the SDK's signer does with its default `uriEscapePath`.
 */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalized = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return escapeUri(normalized).replace(/%2F/g, '/');
}

const escapeUri = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
