/**
 * SigV4 signing for Bedrock's OpenAI-compatible Chat Completions endpoints (`model.auth: sigv4`),
 * for the service the endpoint takes (bedrock-endpoints.ts). The credentials are the Bedrock
 * adapter's (the default AWS chain); the signer is the AWS SDK's own, its SHA-256 node:crypto's (aws/node-sha256.ts). Loaded only
 * by a process that signs (provider.ts imports it on the first call).
 *
 * The client (client.ts) signs each attempt just before it is sent: a retry gets a fresh date and
 * signature, and credentials that were refreshed meanwhile.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../aws/node-sha256.ts';
import { awsCredentials, type AwsCredentials } from '../bedrock/credentials.ts';
import { signingServiceFor } from './bedrock-endpoints.ts';

interface SigV4SignerOptions {
  /** The endpoint's base URL: it decides the service the requests are signed for. */
  baseURL: string;
  /** model.region, else AWS_REGION: the endpoint's region. */
  region: string;
  /** Fixed credentials (tests); otherwise the default chain. */
  credentials?: AwsCredentials;
}

interface RequestToSign {
  url: string;
  method: string;
  /** Lower-case names; `host` is taken from the URL. */
  headers: Record<string, string>;
  body: string;
}

/** The headers to send with the request: its own, plus `authorization`, `x-amz-date` and the rest of SigV4's (never `host`: fetch sets it from the URL, as signed). */
export type RequestSigner = (request: RequestToSign) => Promise<Record<string, string>>;


export function createSigV4Signer(options: SigV4SignerOptions): RequestSigner {
  const signer = new SignatureV4({ service: signingServiceFor(options.baseURL), region: options.region, credentials: awsCredentials(options.credentials), sha256: NodeSha256 });
  return async (request) => {
    const url = new URL(request.url);
    const query: Record<string, string | string[]> = {};
    for (const [name, value] of url.searchParams) {
      const existing = query[name];
      query[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    }
    const signed = await signer.sign({
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      // URL.host carries the port when it is not the scheme's default, as the Host header fetch sends.
      headers: { ...request.headers, host: url.host },
      body: request.body,
    });
    const { host: _host, ...headers } = signed.headers;
    return headers;
  };
}
