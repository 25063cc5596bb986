/**
 * Per-user connections (agent.yml `mcpServers.<name>.auth.mode: per-user`,
 * docs/users-own-accounts.md): each owner connects their own account at an MCP server's OAuth
 * provider, and that server's calls made for them carry their token. The API the HTTP routes
 * reach (GET /connections, DELETE /connections/{server}, GET /connections/{server}/callback), and
 * the signal a call gives when its owner has not connected yet.
 */

/** One per-user server as its owner sees it: never a token. */
export interface UserConnection {
  server: string;
  /** False for a per-user server the owner has not connected (yet, or any more). */
  connected: boolean;
  /** The scopes the provider granted. */
  scopes?: string[];
  /** ISO time the access token expires (it is refreshed before then, while a refresh token lasts). */
  expiresAt?: string;
  /** ISO time the owner connected. */
  connectedAt?: string;
}

/** What the provider's redirect to the callback carried (RFC 6749 §4.1.2). */
export interface ConnectionCallback {
  code?: string;
  state?: string;
  error?: string;
  errorDescription?: string;
}

export interface UserConnectionsApi {
  /** Every per-user server of agent.yml, connected or not, for one owner (undefined: no authentication). */
  listConnections(owner: string | undefined): Promise<UserConnection[]>;
  /** Revokes the owner's tokens at the provider (when it has a revocation endpoint) and forgets them. */
  disconnect(owner: string | undefined, server: string): Promise<void>;
  /**
   * Completes a connection the provider redirected back to: the state names the owner, the server
   * and the PKCE verifier (once: it is spent here). Throws InputError connection_state_invalid or
   * connection_refused.
   */
  completeConnection(server: string, callback: ConnectionCallback): Promise<{ server: string }>;
}

/**
 * Thrown by a call to a per-user server for an owner without a connection: the turn pauses with a
 * URL-mode elicitation that asks the owner to open `url` (the provider's consent page) and then
 * accept. Nothing waits in a process meanwhile.
 */
export class ConnectionRequired extends Error {
  readonly server: string;
  readonly url: string;

  constructor(server: string, url: string, message: string) {
    super(message);
    this.name = 'ConnectionRequired';
    this.server = server;
    this.url = url;
  }
}
