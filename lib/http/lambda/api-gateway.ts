/**
 * API Gateway REST proxy events in and out of the HTTP contract, for both API entries (buffered and
 * streamed). The event is declared structurally, with only the fields read here, so lib/ needs no
 * aws-lambda types; the entries pass the runtime's event as it is.
 */
import type { AuthMode, OwnerFrom } from '../../config/environment.ts';
import { turnDeadlineWithin } from '../../core/deadline.ts';
import { InputError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { corsHeaders } from '../cors.ts';
import { frontDoorErrorResponse } from '../dispatch.ts';
import type { FrontDoor } from '../front-door.ts';
import type { HttpRequest, HttpResponse } from '../types.ts';

export type { AuthMode, OwnerFrom } from '../../config/environment.ts';

/** What API Gateway verified about an IAM (SigV4) caller. */
interface ApiGatewayIdentity {
  cognitoIdentityId?: string | null;
  userArn?: string | null;
  caller?: string | null;
}

/** The fields of a REST proxy event (aws-lambda's APIGatewayProxyEvent) that the contract reads. */
export interface ApiGatewayProxyEvent {
  httpMethod: string;
  path: string;
  headers: Record<string, string | undefined> | null;
  queryStringParameters: Record<string, string | undefined> | null;
  body: string | null;
  isBase64Encoded: boolean;
  requestContext: {
    /** The path as the client sent it, stage included (`/prod/conversations`). */
    path?: string;
    identity?: ApiGatewayIdentity;
    /** Cognito user pool claims, or a custom authorizer's principalId. */
    authorizer?: { claims?: unknown; principalId?: unknown } | null;
  };
}

interface ApiGatewayProxyResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** The part of the Lambda context the contract needs: how long the invocation may still run. */
interface RemainingTime {
  getRemainingTimeInMillis(): number;
}

/** How a deployment tells callers apart (AUTH_MODE and OWNER_FROM). */
interface CallerIdentity {
  authMode: AuthMode;
  ownerFrom: OwnerFrom;
}

/**
 * API Gateway REST proxy event → the HTTP contract's request. Under an auth mode, the caller's
 * identity becomes the conversation owner, so one caller can never reach another's conversations.
 */
export function fromApiGatewayEvent(event: ApiGatewayProxyEvent, context: RemainingTime, identity: CallerIdentity, frontDoors: readonly FrontDoor[] = []): HttpRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  const body = event.body == null ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  // A route served to anyone (FrontDoor.servesAnyone) has no authorizer, so it has no caller either.
  const owner = servedToAnyone(frontDoors, { method: event.httpMethod, path: event.path }) ? undefined : ownerOf(event, identity);
  const claims = owner === undefined ? undefined : claimsOf(event);
  const query = event.queryStringParameters;
  return {
    method: event.httpMethod,
    path: event.path,
    ...basePathOf(event),
    ...(query ? { query: { ...query } } : {}),
    headers,
    body,
    deadlineAt: turnDeadlineWithin(Date.now(), context.getRemainingTimeInMillis()),
    ...(owner === undefined ? {} : { owner }),
    ...(claims ? { claims } : {}),
  };
}

/** A route served to anyone (FrontDoor.servesAnyone: metadata, a provider's callback): no authorizer guards it. */
export function servedToAnyone(frontDoors: readonly FrontDoor[], request: { method: string; path: string }): boolean {
  return frontDoors.find((door) => door.matches(request))?.servesAnyone?.(request) === true;
}

/** The stage (or a custom domain's base path) the client's URL has before the contract's path. */
function basePathOf(event: ApiGatewayProxyEvent): { basePath?: string } {
  const full = event.requestContext.path;
  if (!full || full === event.path || !full.endsWith(event.path)) return {};
  return { basePath: full.slice(0, full.length - event.path.length) };
}

/**
 * The caller's claims as API Gateway's authorizer verified them: a Cognito user pool's token claims
 * (`cognito:groups`, `custom:tenant`, …), or a Lambda authorizer's context (every field besides
 * principalId). Never read from headers: behind API Gateway only requestContext is verified.
 */
export function claimsOf(event: ApiGatewayProxyEvent): Record<string, unknown> | undefined {
  const authorizer = event.requestContext.authorizer;
  if (!authorizer) return undefined;
  const { claims, principalId: _principal, ...context } = authorizer as Record<string, unknown>;
  const verified = claims !== null && typeof claims === 'object' && !Array.isArray(claims) ? { ...(claims as Record<string, unknown>) } : {};
  const all = { ...context, ...verified };
  return Object.keys(all).length > 0 ? all : undefined;
}

/** The session name Cognito identity pools give every credential they hand out. */
const IDENTITY_POOL_SESSION = 'CognitoIdentityCredentials';
const ASSUMED_ROLE = /^(arn:[^:]+:sts::\d{12}:assumed-role\/[^/]+)\/([^/]+)$/;

/**
 * Who owns the caller's conversations. API Gateway fills requestContext from what it verified (the
 * SigV4 signature, the user pool token), never from what the client sent.
 *
 * iam:
 * - an identity-pool caller (guest or signed in): its Cognito identity id. Every user of a pool
 *   signs with the same role session (…/assumed-role/<pool role>/CognitoIdentityCredentials), so
 *   the ARN would put them all in one conversation space.
 * - an assumed role: with ownerFrom `role-session` the session ARN (role and session name); with
 *   `principal` the role alone (arn:aws:sts::<account>:assumed-role/<role>). Whoever may assume the
 *   role chooses the session name, so sessions of one role are kept apart only from callers that
 *   cannot assume it (docs/security.md says how to pin session names in the trust policy).
 * - an IAM user (or root, or a federated user): its ARN.
 * cognito: the user pool's `sub` claim (or a custom authorizer's principalId).
 * oidc: the principalId of the stack's OIDC authorizer (functions/oidc-authorizer.ts): the `sub` of
 * the provider's token it verified.
 */
export function ownerOf(event: ApiGatewayProxyEvent, identity: CallerIdentity): string | undefined {
  if (identity.authMode === 'none') return undefined;
  const owner = identity.authMode === 'iam' ? iamOwner(event.requestContext.identity, identity.ownerFrom)
    : identity.authMode === 'oidc' ? oidcOwner(event) : cognitoOwner(event);
  if (typeof owner !== 'string' || owner === '') throw new InputError('unauthenticated', `This API requires ${REQUIRED_CREDENTIALS[identity.authMode]}.`);
  return owner;
}

function iamOwner(caller: ApiGatewayIdentity | undefined, ownerFrom: OwnerFrom): string | undefined {
  if (caller?.cognitoIdentityId) return caller.cognitoIdentityId;
  const arn = caller?.userArn ?? caller?.caller ?? undefined;
  if (!arn) return undefined;
  const assumedRole = ASSUMED_ROLE.exec(arn);
  if (!assumedRole) return arn;
  const [, role, session] = assumedRole;
  // Fail closed: a pool session without its identity id would be every pool user at once.
  if (session === IDENTITY_POOL_SESSION) return undefined;
  return ownerFrom === 'principal' ? role : arn;
}

const REQUIRED_CREDENTIALS: Record<Exclude<AuthMode, 'none'>, string> = {
  iam: 'SigV4-signed (IAM) requests',
  cognito: 'a Cognito user pool token in the Authorization header',
  oidc: "the OpenID Connect provider's token in the Authorization header (Bearer)",
};

function oidcOwner(event: ApiGatewayProxyEvent): string | undefined {
  const principal = event.requestContext.authorizer?.principalId;
  return typeof principal === 'string' ? principal : undefined;
}

function cognitoOwner(event: ApiGatewayProxyEvent): string | undefined {
  const claims = event.requestContext.authorizer?.claims as Record<string, string> | undefined;
  return claims?.sub ?? (event.requestContext.authorizer?.principalId as string | undefined);
}

export function toApiGatewayResult(response: HttpResponse): ApiGatewayProxyResult {
  return { statusCode: response.statusCode, headers: response.headers, body: response.body };
}

/**
 * Runs a request through the contract and finishes the response both API entries send: any error
 * that escaped becomes its contract response, and the CORS header is added for allowed origins.
 */
export async function answer<Response extends HttpResponse | { headers: Record<string, string> }>(
  event: ApiGatewayProxyEvent,
  produce: () => Promise<Response>,
  options: { logger: Logger; allowedOrigins: readonly string[]; frontDoors: readonly FrontDoor[] },
): Promise<Response | HttpResponse> {
  let response: Response | HttpResponse;
  try {
    response = await produce();
  } catch (error) {
    // A caller who cannot be identified, say: in the error shape of the door the client called.
    response = frontDoorErrorResponse(options.frontDoors, { method: event.httpMethod, path: event.path ?? '' }, error, options.logger);
  }
  Object.assign(response.headers, corsHeaders(event.headers?.origin ?? event.headers?.Origin, options.allowedOrigins));
  return response;
}
