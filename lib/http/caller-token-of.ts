import { CallerToken } from '../core/caller-token.ts';
import type { HttpRequest } from './types.ts';

/**
 * The bearer token of a caller the deployment identified (a request with an owner: AUTH_MODE=cognito
 * or oidc, where API Gateway's authorizer, or npm start itself, verified it), for MCP servers that
 * act on the caller's behalf.
 * `Bearer <token>` or the bare token (a Cognito authorizer takes either); under AUTH_MODE=iam the
 * Authorization header is a SigV4 signature, which has spaces and is no token, so it is never taken.
 * Every front door that runs turns passes it on, as it does the trace context.
 */
export const callerTokenOf = (request: HttpRequest): { callerToken?: CallerToken } => {
  if (request.owner === undefined) return {};
  const header = request.headers.authorization?.trim();
  const token = header?.replace(/^Bearer\s+/i, '');
  if (!token || /\s/.test(token)) return {};
  return { callerToken: new CallerToken(token) };
};
