/**
 * Checks a request's SigV4 signature the way an AWS service does: rebuilds the canonical request
 * from what arrived (method, path, signed headers, body), signs it with the test credentials and
 * compares. Written from the SigV4 specification with node:crypto, not with the SDK's signer, so a
 * signing mistake of the SDK's set-up is not checked by the same code that made it.
 */
import { createHash, createHmac } from 'node:crypto';

export interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SignedRequest {
  method: string;
  /** As it arrived: already URI-encoded once. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;:_-]+), ?Signature=([0-9a-f]{64})$/;

/** Undefined when the signature holds; otherwise what is wrong, as the service would say it. */
export function signatureProblem(request: SignedRequest, credentials: SigningCredentials, expected: { service: string; region: string }): string | undefined {
  const authorization = header(request.headers, 'authorization');
  if (authorization === undefined) return 'Missing Authentication Token';
  const match = AUTHORIZATION.exec(authorization);
  if (!match) return `Authorization header is not SigV4: ${authorization.slice(0, 40)}`;
  const [, accessKeyId, date, region, service, signedHeaders, signature] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) return `The security token included in the request is invalid (key ${accessKeyId}).`;
  if (service !== expected.service) return `Credential should be scoped to correct service: '${expected.service}', not '${service}'.`;
  if (region !== expected.region) return `Credential should be scoped to a valid region: '${expected.region}', not '${region}'.`;
  const amzDate = header(request.headers, 'x-amz-date');
  if (amzDate === undefined || !amzDate.startsWith(date!)) return 'The x-amz-date header is missing or does not match the credential scope.';

  const names = signedHeaders!.split(';');
  if (!names.includes('host') && !names.includes(':authority')) return 'The host header must be signed.';
  const canonicalHeaders = names.map((name) => `${name}:${(header(request.headers, name === 'host' ? 'host' : name) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const payloadHash = header(request.headers, 'x-amz-content-sha256') ?? sha256(request.body);
  if (payloadHash !== sha256(request.body)) return 'The x-amz-content-sha256 header does not match the body.';
  const [rawPath = '/', query = ''] = request.path.split('?');
  // Services other than S3 encode each path segment once more in the canonical request.
  const canonicalPath = rawPath.split('/').map((segment) => encodeURIComponent(segment)).join('/');
  const canonicalQuery = query === '' ? '' : query.split('&').sort().join('&');
  const canonicalRequest = [request.method, canonicalPath, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, date!);
  for (const part of [region!, service!, 'aws4_request']) key = hmac(key, part);
  const computed = createHmac('sha256', key).update(stringToSign).digest('hex');
  return computed === signature ? undefined : 'The request signature we calculated does not match the signature you provided.';
}

function header(headers: SignedRequest['headers'], name: string): string | undefined {
  const value = headers[name] ?? (name === 'host' ? headers[':authority'] : undefined);
  return Array.isArray(value) ? value.join(',') : value;
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();
