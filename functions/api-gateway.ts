import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { HttpRequest, HttpResponse } from '../lib/http/types.ts';

/** API Gateway REST proxy event → the HTTP contract's request. */
export function fromApiGatewayEvent(event: APIGatewayProxyEvent, context: Pick<Context, 'getRemainingTimeInMillis'>): HttpRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  const body = event.body == null ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  return {
    method: event.httpMethod,
    path: event.path,
    headers,
    body,
    deadlineAt: Date.now() + context.getRemainingTimeInMillis(),
  };
}

export function toApiGatewayResult(response: HttpResponse): APIGatewayProxyResult {
  return { statusCode: response.statusCode, headers: response.headers, body: response.body };
}
