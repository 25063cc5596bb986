import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { InputError } from '../core/errors.ts';
import type { ApiGatewayProxyEvent } from '../http/lambda/api-gateway.ts';
import type { VerifiedAuthorizer } from './oidc-caller.ts';
import { PRELUDE_CONTENT_TYPE, PRELUDE_DELIMITER } from '../http/lambda/awslambda-global.ts';

/**
 * npm start's bridge between node:http and the streaming Lambda handler: a request becomes the API
 * Gateway REST proxy event, the handler's response stream becomes the node:http response, as the
 * Lambda service and API Gateway do in a deployment.
 */

/**
 * The request's body, read up to `maxBytes` (http.maxBodyBytes): a body declared or found to be
 * longer is refused with body_too_large as soon as that is known, and nothing more of it is kept,
 * so a large upload costs no more memory than the limit. The caller answers and closes the
 * connection; node:http discards whatever the client still sends.
 */
export function readRequest(incoming: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(incoming.headers['content-length']);
  if (declared > maxBytes) return Promise.reject(tooLarge(`has ${declared} bytes`, maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      incoming.off('data', onData);
      chunks.length = 0;
      reject(tooLarge(`has more than ${maxBytes} bytes`, maxBytes));
    };
    incoming.on('data', onData);
    incoming.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.once('error', reject);
  });
}

function tooLarge(what: string, maxBytes: number): InputError {
  return new InputError('body_too_large', `The request body ${what}; the limit is ${maxBytes}. Send a shorter message.`);
}

/**
 * A node:http request as the API Gateway REST proxy event the Lambda handler receives. With a
 * `callerHeader` (LOCAL_CALLER_HEADER), that header's value stands for the caller an authorizer
 * verified (its principalId), as the handler reads it under AUTH_MODE=cognito. Under AUTH_MODE=oidc
 * the caller is `verified`: what the OIDC authorizer would have put there (lib/local/oidc-caller.ts).
 */
export function toLocalEvent(incoming: IncomingMessage, body: string, callerHeader?: string, claimsHeader?: string, verified?: VerifiedAuthorizer): ApiGatewayProxyEvent {
  const url = new URL(incoming.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    headers[name] = values.join(', ');
    multiValueHeaders[name] = values;
  }
  const query = Object.fromEntries(url.searchParams);
  const method = incoming.method ?? 'GET';
  const caller = callerHeader === undefined ? undefined : headers[callerHeader];
  const claims = caller && claimsHeader !== undefined ? localClaims(headers[claimsHeader]) : undefined;
  // The whole event, as API Gateway sends it (middleware may read any field), typed by the fields
  // the contract reads (lib/ has no aws-lambda types).
  const event = {
    resource: '/{proxy+}',
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: Object.keys(query).length > 0 ? query : null,
    multiValueQueryStringParameters: null,
    pathParameters: { proxy: url.pathname.slice(1) },
    stageVariables: null,
    body: body === '' ? null : body,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: verified ?? (caller ? { principalId: caller, ...(claims ? { claims } : {}) } : null),
      protocol: `HTTP/${incoming.httpVersion}`,
      httpMethod: method,
      identity: { sourceIp: incoming.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? null, cognitoIdentityId: null, userArn: null, caller: null },
      path: url.pathname,
      stage: 'local',
      requestId: crypto.randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: '/{proxy+}',
    },
  };
  return event;
}

/** The Lambda context (aws-lambda's Context) of a local invocation. */
interface LocalContext {
  callbackWaitsForEmptyEventLoop: boolean;
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string;
  awsRequestId: string;
  logGroupName: string;
  logStreamName: string;
  getRemainingTimeInMillis(): number;
  done(): void;
  fail(): void;
  succeed(): void;
}

/** Local runs have no Lambda deadline: every request gets the configured turn time. */
export function localContext(turnTimeoutMs: number): LocalContext {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'mcp-agent-local',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:mcp-agent-local',
    memoryLimitInMB: '1024',
    awsRequestId: crypto.randomUUID(),
    logGroupName: 'local',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => turnTimeoutMs,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** What the streaming handler writes to: a Lambda response stream, with the runtime's setContentType. */
type LocalResponseStream = Writable & { setContentType(contentType: string): void };

/**
 * A Lambda response stream that answers a node:http request, as the Lambda service and API Gateway
 * do with the real one: the metadata prelude (JSON up to 8 NUL bytes) becomes the status and
 * headers, every later byte goes to the client as it comes. A client that hangs up destroys the
 * stream, so the handler sees the disconnect a real one would.
 */
export function responseStreamTo(outgoing: ServerResponse): LocalResponseStream {
  let contentType = 'application/octet-stream';
  /** The bytes of the prelude received so far; undefined once the status and headers are out. */
  let head: Buffer | undefined = Buffer.alloc(0);

  /** Returns the part of the chunk that is body, once the status and headers could be sent. */
  const readHead = (received: Buffer, chunk: Buffer): Buffer | undefined => {
    if (contentType !== PRELUDE_CONTENT_TYPE) {
      head = undefined;
      outgoing.writeHead(200, { 'content-type': contentType });
      return chunk;
    }
    const bytes = Buffer.concat([received, chunk]);
    const end = bytes.indexOf(PRELUDE_DELIMITER);
    if (end < 0) {
      head = bytes;
      return undefined;
    }
    head = undefined;
    const prelude = JSON.parse(bytes.subarray(0, end).toString('utf8')) as { statusCode?: number; headers?: Record<string, string> };
    outgoing.writeHead(prelude.statusCode ?? 200, prelude.headers ?? {});
    // An event stream's client should see the status now, not with the first event.
    outgoing.flushHeaders();
    return bytes.subarray(end + PRELUDE_DELIMITER.length);
  };

  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const body = head === undefined ? chunk : readHead(head, chunk);
      if (body === undefined || body.length === 0 || outgoing.write(body)) return callback();
      outgoing.once('drain', () => callback());
    },
    final(callback) {
      if (head !== undefined) {
        // A prelude cut short is a broken integration response (API Gateway answers it with 502);
        // a plain stream with nothing written is an empty 200.
        const broken = contentType === PRELUDE_CONTENT_TYPE;
        outgoing.writeHead(broken ? 502 : 200, broken ? {} : { 'content-type': contentType });
      }
      outgoing.end(() => callback());
    },
  });
  outgoing.once('close', () => {
    // Without an error: nothing may be listening yet, and the handler learns of it by its writes.
    if (!outgoing.writableFinished) stream.destroy();
  });
  return Object.assign(stream, { setContentType: (type: string) => void (contentType = type) });
}

/** LOCAL_CLAIMS_HEADER's value: a JSON object, or nothing (a value that is not one is a 400). */
function localClaims(value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InputError('malformed_json', 'The claims header (LOCAL_CLAIMS_HEADER) must hold a JSON object, such as {"groups": ["support"]}.');
  return parsed as Record<string, unknown>;
}
