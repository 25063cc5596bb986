/**
 * Where per-user connections are kept between requests and processes: the owners' sealed tokens,
 * the authorizations in progress (a `state` bound to its owner, server and PKCE verifier, taken
 * once), each server's registered client, and each server's last tool catalog. Deployed and in
 * `npm start`, the conversation table (lib/adapters/dynamodb/connection-store.ts); in a test or
 * embedding code without a table, memory (createMemoryConnectionStore).
 *
 * Secrets are sealed before they reach a store (sealer.ts); what a store holds in the clear is what
 * GET /connections shows (scopes, times) and the tool catalog, which is the server's, not a user's.
 */

/** An owner's tokens for one server. */
export interface StoredConnection {
  owner: string | undefined;
  server: string;
  /** The token response and when it arrived (ConnectionSecrets), sealed for this owner and server. */
  sealed: string;
  /** Increases with every write: a refresh is stored only over the version it refreshed. */
  version: number;
  connectedAt: string;
  scopes: string[];
  /** ISO time the access token expires, when the provider said. */
  tokenExpiresAt?: string;
}

/** An authorization started for an owner: what the callback needs, found by the hash of its state. */
export interface PendingAuthorization {
  stateHash: string;
  owner: string | undefined;
  server: string;
  /** PendingSecrets (the PKCE verifier, the client id and redirect URL used), sealed. */
  sealed: string;
  /** Epoch ms after which the state is refused (and the item may be deleted by the table's TTL). */
  expiresAt: number;
}

/** A client registered with a server's authorization server (dynamic registration), shared by its owners. */
export interface StoredClient {
  server: string;
  /** The redirect URL it was registered with: a new URL means a new registration. */
  redirectUrl: string;
  /** The client information, sealed (it may hold a client secret). */
  sealed: string;
}

/** The tools a per-user server listed when last seen (tool definitions are server-wide). */
export interface StoredCatalog {
  server: string;
  /** The MCP tools as listed, JSON. */
  tools: string;
  listedAt: string;
}

export interface ConnectionStore {
  readConnection(owner: string | undefined, server: string): Promise<StoredConnection | undefined>;
  /**
   * Stores the record when the stored one still has `expected.version` (a refresh), or whatever is
   * stored (`'any'`: a new connection replaces an old one). False when another writer got there first.
   */
  writeConnection(record: StoredConnection, expected: { version: number } | 'any'): Promise<boolean>;
  /** Deletes the owner's record; with `version`, only while that is still the stored version. */
  deleteConnection(owner: string | undefined, server: string, version?: number): Promise<void>;
  putPending(record: PendingAuthorization): Promise<void>;
  /** The pending authorization of this state hash, removed as it is read: a state works once. */
  takePending(stateHash: string): Promise<PendingAuthorization | undefined>;
  readClient(server: string): Promise<StoredClient | undefined>;
  /** Stores the client unless one is stored already; resolves to the one stored (the first writer's). */
  putClientIfAbsent(record: StoredClient): Promise<StoredClient>;
  /** Forgets a client the authorization server no longer knows (or registered for another redirect URL). */
  deleteClient(server: string): Promise<void>;
  readCatalog(server: string): Promise<StoredCatalog | undefined>;
  writeCatalog(record: StoredCatalog): Promise<void>;
}

/** Keeps everything in this process (tests, embedding code without a table). */
export function createMemoryConnectionStore(): ConnectionStore {
  const connections = new Map<string, StoredConnection>();
  const pending = new Map<string, PendingAuthorization>();
  const clients = new Map<string, StoredClient>();
  const catalogs = new Map<string, StoredCatalog>();
  const key = (owner: string | undefined, server: string) => JSON.stringify([owner ?? null, server]);
  return {
    async readConnection(owner, server) {
      return structuredClone(connections.get(key(owner, server)));
    },
    async writeConnection(record, expected) {
      const stored = connections.get(key(record.owner, record.server));
      if (expected !== 'any' && stored?.version !== expected.version) return false;
      connections.set(key(record.owner, record.server), structuredClone(record));
      return true;
    },
    async deleteConnection(owner, server, version) {
      if (version !== undefined && connections.get(key(owner, server))?.version !== version) return;
      connections.delete(key(owner, server));
    },
    async putPending(record) {
      pending.set(record.stateHash, structuredClone(record));
    },
    async takePending(stateHash) {
      const found = pending.get(stateHash);
      pending.delete(stateHash);
      return found;
    },
    async readClient(server) {
      return structuredClone(clients.get(server));
    },
    async putClientIfAbsent(record) {
      if (!clients.has(record.server)) clients.set(record.server, structuredClone(record));
      return structuredClone(clients.get(record.server)!);
    },
    async deleteClient(server) {
      clients.delete(server);
    },
    async readCatalog(server) {
      return structuredClone(catalogs.get(server));
    },
    async writeCatalog(record) {
      catalogs.set(record.server, structuredClone(record));
    },
  };
}
