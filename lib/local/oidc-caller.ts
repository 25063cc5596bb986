import type { IncomingHttpHeaders } from 'node:http';
import { authorizerContextOf, type AuthorizerContext } from '../adapters/oidc/authorizer-context.ts';
import { TokenRejected, type VerifyToken } from '../adapters/oidc/verify-token.ts';
import { InputError } from '../core/errors.ts';

/** What API Gateway's OIDC authorizer puts in requestContext.authorizer: the owner and the claims. */
export type VerifiedAuthorizer = { principalId: string } & AuthorizerContext;

/**
 * npm start under AUTH_MODE=oidc: the bearer token verified here, with the verifier the deployed
 * authorizer uses (functions/oidc-authorizer.ts), so a local run accepts and refuses the same
 * tokens. A request without a token is `unauthenticated`, one whose token does not verify
 * `invalid_token` (with the reason, which never quotes the token); both 401.
 */
export async function verifiedAuthorizer(headers: IncomingHttpHeaders, verify: VerifyToken): Promise<VerifiedAuthorizer> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  if (!token) throw new InputError('unauthenticated', "This API requires the OpenID Connect provider's token in the Authorization header (Bearer).");
  try {
    const caller = await verify(token);
    return { ...authorizerContextOf(caller.claims), principalId: caller.subject };
  } catch (error) {
    if (error instanceof TokenRejected) throw new InputError('invalid_token', `The bearer token was refused: ${error.message}.`);
    throw error;
  }
}

/** The challenge of a 401 (RFC 6750): `error="invalid_token"` when a token was sent and refused. */
export function bearerChallenge(error: unknown): string | undefined {
  if (!(error instanceof InputError)) return undefined;
  if (error.code === 'unauthenticated') return 'Bearer';
  if (error.code === 'invalid_token') return 'Bearer error="invalid_token"';
  return undefined;
}
