import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/** API Gateway's own payload limit; the handler applies the configured, smaller one. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

export async function readRequest(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) throw Object.assign(new Error(`the request body exceeds ${MAX_REQUEST_BYTES} bytes`), { code: 'body_too_large' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A node:http request as the API Gateway REST proxy event the Lambda handler receives. */
export function toLocalEvent(incoming: IncomingMessage, body: string): APIGatewayProxyEvent {
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
  return {
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
      authorizer: null,
      protocol: `HTTP/${incoming.httpVersion}`,
      httpMethod: method,
      identity: { sourceIp: incoming.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? null } as APIGatewayProxyEvent['requestContext']['identity'],
      path: url.pathname,
      stage: 'local',
      requestId: crypto.randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: '/{proxy+}',
    },
  };
}

/** Local runs have no Lambda deadline: every request gets the configured turn time. */
export function localContext(turnTimeoutMs: number): Context {
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
