/**
 * Workload identity federation (MCP SEP-1933, the RFC 7523 jwt-bearer grant): no person and no
 * client secret; the service presents a JWT its platform issued it (a Kubernetes projected
 * service-account token, for instance) and gets an access token for it.
 *
 * The token is read from `oauth.assertionFile` at every token request, never kept: platforms
 * rotate the file (the kubelet rewrites it well before the token expires), and a token read once
 * at start-up would be stale within the hour.
 */
import { readFile } from 'node:fs/promises';
import { McpOAuthError } from './errors.ts';

export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Three base64url parts: what a signed JWT looks like, checked before it is sent anywhere. */
const COMPACT_JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The token request's form: the grant, the workload's JWT as `assertion`, and the scope, if any. */
export async function workloadAssertionRequest(server: string, assertionFile: string, scope: string | undefined): Promise<URLSearchParams> {
  let assertion: string;
  try {
    assertion = (await readFile(assertionFile, 'utf8')).trim();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new McpOAuthError('mcp_oauth_assertion_unavailable', server, `MCP server "${server}": the workload identity token file ${assertionFile} cannot be read (${reason})`, { cause: error });
  }
  // The file's content is a credential: the message names the file, never what is in it.
  if (!COMPACT_JWT.test(assertion)) {
    throw new McpOAuthError('mcp_oauth_assertion_unavailable', server, `MCP server "${server}": the workload identity token file ${assertionFile} does not hold a signed JWT`);
  }
  return new URLSearchParams({ grant_type: JWT_BEARER_GRANT_TYPE, assertion, ...(scope ? { scope } : {}) });
}
