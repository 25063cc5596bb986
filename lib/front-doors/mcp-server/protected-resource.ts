import type { StreamingHttpResponse } from '../../http/event-stream.ts';
import type { HttpRequest } from '../../http/types.ts';
import { MCP_PATH } from './settings.ts';

/**
 * OAuth protected resource metadata (RFC 9728), which the MCP authorization spec asks of a server
 * whose tokens are OAuth: where a client finds the authorization server that issues them. Only
 * under Cognito: IAM callers sign with SigV4, which is not OAuth, and `none` has no tokens at all.
 */
export interface ProtectedResource {
  /** The Cognito user pool's issuer (https://cognito-idp.<region>.amazonaws.com/<pool id>). */
  authorizationServer: string;
}

/** RFC 9728's well-known path; a client looks first for the one with the resource's path appended. */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';
export const METADATA_PATHS: readonly string[] = [`${METADATA_PATH}${MCP_PATH}`, METADATA_PATH];

export function isMetadataPath(path: string): boolean {
  return METADATA_PATHS.includes(path.replace(/\/+$/, ''));
}

/** The document: the /mcp URL the client used, and the issuer of the tokens it takes (ID tokens in the Authorization header). */
export function metadataResponse(request: HttpRequest, resource: ProtectedResource): StreamingHttpResponse {
  const document = {
    resource: urlOf(request, MCP_PATH),
    authorization_servers: [resource.authorizationServer],
    bearer_methods_supported: ['header'],
  };
  return { statusCode: 200, headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' }, body: JSON.stringify(document) };
}

/** A request with no caller: 401 with the header that points an MCP client at the metadata. */
export function unauthenticatedResponse(request: HttpRequest): StreamingHttpResponse {
  const body = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'This MCP server requires a Cognito user pool token in the Authorization header.', data: { code: 'unauthenticated' } } };
  return {
    statusCode: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer resource_metadata="${urlOf(request, `${METADATA_PATH}${MCP_PATH}`)}"` },
    body: JSON.stringify(body),
  };
}

/**
 * An absolute URL on the host and base path (API Gateway's stage) the client called. API Gateway
 * says https in X-Forwarded-Proto; the local server (npm start) is plain http.
 */
function urlOf(request: HttpRequest, path: string): string {
  const host = request.headers['host'] ?? 'localhost';
  const scheme = request.headers['x-forwarded-proto']?.split(',')[0]?.trim() ?? (isLoopback(host) ? 'http' : 'https');
  return `${scheme}://${host}${request.basePath ?? ''}${path}`;
}

function isLoopback(host: string): boolean {
  return /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i.test(host);
}
