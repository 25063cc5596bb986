import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { InputError } from '../lib/core/errors.ts';
import type { Logger } from '../lib/core/logger.ts';
import { corsHeaders } from '../lib/http/cors.ts';
import { errorResponse } from '../lib/http/errors.ts';
import type { HttpRequest, HttpResponse } from '../lib/http/types.ts';

export type { AuthMode } from '../lib/config/environment.ts';
import type { AuthMode } from '../lib/config/environment.ts';

/**
 * API Gateway REST proxy event → the HTTP contract's request. Under an auth mode, the caller's
 * identity becomes the conversation owner, so one caller can never reach another's conversations.
 */
export function fromApiGatewayEvent(event: APIGatewayProxyEvent, context: Pick<Context, 'getRemainingTimeInMillis'>, authMode: AuthMode): HttpRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  const body = event.body == null ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const owner = ownerOf(event, authMode);
  return {
    method: event.httpMethod,
    path: event.path,
    headers,
    body,
    deadlineAt: Date.now() + context.getRemainingTimeInMillis(),
    ...(owner === undefined ? {} : { owner }),
  };
}

/**
 * iam: the caller's IAM principal (user or assumed-role ARN) as API Gateway verified it.
 * cognito: the user pool's `sub` claim (or a custom authorizer's principalId).
 */
export function ownerOf(event: APIGatewayProxyEvent, authMode: AuthMode): string | undefined {
  if (authMode === 'none') return undefined;
  const owner = authMode === 'iam'
    ? event.requestContext.identity?.userArn ?? event.requestContext.identity?.caller ?? undefined
    : (event.requestContext.authorizer?.claims as Record<string, string> | undefined)?.sub ?? event.requestContext.authorizer?.principalId;
  if (typeof owner !== 'string' || owner === '') {
    throw new InputError('unauthenticated', `This API requires ${authMode === 'iam' ? 'SigV4-signed (IAM) requests' : 'a Cognito user pool token in the Authorization header'}.`);
  }
  return owner;
}

export function toApiGatewayResult(response: HttpResponse): APIGatewayProxyResult {
  return { statusCode: response.statusCode, headers: response.headers, body: response.body };
}

/**
 * Runs a request through the contract and finishes the response both API entries send: any error
 * that escaped becomes its contract response, and the CORS header is added for allowed origins.
 */
export async function answer<Response extends HttpResponse | { headers: Record<string, string> }>(
  event: APIGatewayProxyEvent,
  produce: () => Promise<Response>,
  options: { logger: Logger; allowedOrigins: readonly string[] },
): Promise<Response | HttpResponse> {
  let response: Response | HttpResponse;
  try {
    response = await produce();
  } catch (error) {
    response = errorResponse(error, options.logger);
  }
  Object.assign(response.headers, corsHeaders(event.headers?.origin ?? event.headers?.Origin, options.allowedOrigins));
  return response;
}
