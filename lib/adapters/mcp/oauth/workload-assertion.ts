/**
 * Workload identity federation (MCP SEP-1933, the RFC 7523 jwt-bearer grant): no person and no
 * client secret; the service presents a JWT its platform issued it (a Kubernetes projected
 * service-account token, for instance) and gets an access token for it.
 *
 * The token is read from `oauth.assertionFile` at every token request, never kept: platforms
 * rotate the file (the kubelet rewrites it well before the token expires), and a token read once
 * at start-up would be stale within the hour.
 *
 * Loaded as `#mcp-oauth-workload`: Lambda bundles of a configuration without any `oauth` block
 * leave it out (functions/substitutes/without-mcp-oauth.ts).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { JWT_BEARER_GRANT_TYPE } from './client.ts';
import { McpOAuthError } from './errors.ts';

/** Three base64url parts: what a signed JWT looks like, checked before it is sent anywhere. */
const COMPACT_JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * One server's jwt-bearer token requests. A token the authorization server rejected is not
 * presented again (SEP-1933: surface the error, do not retry or switch grants): the SDK's auth()
 * retries a grant called invalid at once, and every reconnection would send the same file again.
 * The next token the platform writes to the file is presented as usual. Only a hash of the
 * rejected token is kept, never the token.
 */
export class WorkloadAssertion {
  private readonly server: string;
  private readonly assertionFile: string;
  private lastSent: string | undefined;
  private rejectedHash: string | undefined;

  constructor(server: string, assertionFile: string) {
    this.server = server;
    this.assertionFile = assertionFile;
  }

  /** The authorization server rejected the grant (invalid_grant, invalid_client, unauthorized_client). */
  rejected(): void {
    this.rejectedHash = this.lastSent;
  }

  async tokenRequest(scope: string | undefined): Promise<URLSearchParams> {
    const request = await workloadAssertionRequest(this.server, this.assertionFile, scope);
    const sent = hashOf(request.get('assertion')!);
    if (sent === this.rejectedHash) {
      throw new McpOAuthError(
        'mcp_oauth_assertion_unavailable',
        this.server,
        `MCP server "${this.server}": the authorization server rejected the workload identity token in ${this.assertionFile}; it is not presented again, the next one the platform writes there is`,
      );
    }
    this.lastSent = sent;
    return request;
  }
}

const hashOf = (assertion: string): string => createHash('sha256').update(assertion).digest('base64url');

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
