/**
 * Enterprise-managed authorization (SEP-990, the identity assertion authorization grant): the
 * user's ID token from the enterprise identity provider is exchanged there (RFC 8693) for an
 * Identity Assertion JWT Authorization Grant (ID-JAG) naming the MCP server's authorization server
 * as audience and the MCP server as resource; the authorization server takes the ID-JAG with the
 * jwt-bearer grant (RFC 7523) and issues the access token. No browser, no consent screen: the
 * enterprise's policy at its identity provider decides.
 */
import { tokenExchangeParameters, type TokenExchange } from './token-exchange.ts';

export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Step one, at the identity provider: the ID token for an ID-JAG. */
export function idJagRequestParameters(request: { idToken: string; subjectTokenType: string; authorizationServer: string; resource: string; scopes?: readonly string[] }): URLSearchParams {
  const exchange: TokenExchange = {
    subjectToken: request.idToken,
    subjectTokenType: request.subjectTokenType,
    requestedTokenType: ID_JAG_TOKEN_TYPE,
    audience: request.authorizationServer,
    resource: request.resource,
    ...(request.scopes ? { scopes: request.scopes } : {}),
  };
  return tokenExchangeParameters(exchange);
}

/** Step two, at the MCP server's authorization server: the ID-JAG as the jwt-bearer grant's assertion. */
export function jwtBearerParameters(assertion: string, scopes?: readonly string[]): URLSearchParams {
  const parameters = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion });
  if (scopes && scopes.length > 0) parameters.set('scope', scopes.join(' '));
  return parameters;
}
