/**
 * Lambda entry of the REST API's TOKEN authorizer under authMode=oidc: verifies the caller's
 * OpenID Connect token (the Authorization header, `Bearer <JWT>`) with the verifier npm start uses
 * (lib/adapters/oidc/verify-token.ts), against OIDC_ISSUER's keys and OIDC_AUDIENCE. A valid token
 * is allowed with its `sub` as principalId (the conversation owner, lib/http/lambda/api-gateway.ts)
 * and its claims as the context (the tool policy's principal attributes); API Gateway caches the
 * answer per token, so the policy allows every method of the stage, not just the one asked for. A
 * missing or refused token is `Unauthorized` (a 401 in the contract's shape, infra/api.ts); a
 * provider that cannot be reached fails the request (500), rather than letting anyone in.
 *
 * Its own small bundle: jose and the verifier only, never the agent.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { authorizerContextOf, type AuthorizerContext } from '../lib/adapters/oidc/authorizer-context.ts';
import { oidcTokenVerifier, TokenRejected } from '../lib/adapters/oidc/verify-token.ts';
import { ENV, readOidcSettings } from '../lib/config/environment.ts';

/** What API Gateway sends a TOKEN authorizer (aws-lambda's APIGatewayTokenAuthorizerEvent). */
export interface TokenAuthorizerEvent {
  type: 'TOKEN';
  authorizationToken?: string;
  /** arn:aws:execute-api:<region>:<account>:<api id>/<stage>/<method>/<path> */
  methodArn: string;
}

export interface AuthorizerResult {
  principalId: string;
  policyDocument: { Version: '2012-10-17'; Statement: Array<{ Action: 'execute-api:Invoke'; Effect: 'Allow'; Resource: string }> };
  context: AuthorizerContext;
}

const logger = new Logger({ serviceName: process.env[ENV.serviceName] ?? 'mcp-agent' });
// Read at cold start: a wrong setting fails every invocation with its message in the log.
const verify = oidcTokenVerifier(readOidcSettings(process.env));

export async function handler(event: TokenAuthorizerEvent): Promise<AuthorizerResult> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(event.authorizationToken ?? '')?.[1];
  if (!token) {
    logger.info('oidc token missing');
    throw new Error('Unauthorized');
  }
  try {
    const caller = await verify(token);
    return {
      principalId: caller.subject,
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: everyMethodOf(event.methodArn) }] },
      context: authorizerContextOf(caller.claims),
    };
  } catch (error) {
    // The reason (expired, another audience…) never quotes the token.
    if (error instanceof TokenRejected) {
      logger.info('oidc token refused', { reason: error.message });
      throw new Error('Unauthorized');
    }
    logger.error('oidc provider unreachable', { error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

/** The stage's every method and path: the cached answer is reused for the caller's next requests, whatever they are. */
function everyMethodOf(methodArn: string): string {
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*/*`;
}
