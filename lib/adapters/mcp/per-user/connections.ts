/**
 * Owners' connections to per-user servers: started (a state bound to owner, server and PKCE
 * verifier, kept sealed in the store for ten minutes and good once), completed at the callback,
 * read for each call (renewed shortly before the access token expires, and after a 401), listed,
 * and revoked. Every token is sealed for its owner and server before it is stored (sealer.ts) and
 * never logged.
 *
 * Two calls of one owner that both find the token expiring must not both spend a rotating refresh
 * token: in a process they share one renewal; across processes the store's version decides, and the
 * loser (whose refresh the provider refuses, or whose write finds a newer version) takes the
 * winner's tokens from the store.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { errorMessage, InputError, NotFoundError } from '../../../core/errors.ts';
import type { Logger } from '../../../core/logger.ts';
import type { ConnectionCallback, UserConnection, UserConnectionsApi } from '../../../core/ports/user-connections.ts';
import type { PerUserAuthorization } from './authorization.ts';
import type { ConnectionStore, StoredConnection } from './connection-store.ts';
import type { RecordSealer } from './sealer.ts';

/** How long a started authorization may take: the person signs in meanwhile. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;

interface ConnectionSecrets {
  tokens: OAuthTokens;
  /** Epoch ms the tokens arrived (expires_in counts from then). */
  receivedAt: number;
}

interface Held {
  record: StoredConnection;
  secrets: ConnectionSecrets;
}

export interface UserConnectionsOptions {
  servers: ReadonlyMap<string, PerUserAuthorization>;
  store: ConnectionStore;
  sealer: RecordSealer;
  logger: Logger;
  now?: () => number;
  /** A connection was just made: the gateway lists the server's tools with it. */
  onConnected?: (owner: string | undefined, server: string) => Promise<void>;
}

export class UserConnections implements UserConnectionsApi {
  private readonly options: UserConnectionsOptions;
  /** Renewals running in this process, per owner and server: the calls that find the token expiring share one. */
  private readonly renewals = new Map<string, Promise<string | undefined>>();

  constructor(options: UserConnectionsOptions) {
    this.options = options;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private authorization(server: string): PerUserAuthorization {
    const found = this.options.servers.get(server);
    if (!found) throw new NotFoundError('connection_server_unknown', `There is no MCP server "${server}" that users connect to with their own account (auth.mode: per-user in agent.yml). GET /connections lists them.`);
    return found;
  }

  /** The provider's consent page for this owner, with a new single-use state stored for the callback. */
  async startConnection(owner: string | undefined, server: string): Promise<string> {
    const authorization = this.authorization(server);
    const state = randomBytes(32).toString('base64url');
    const { url, secrets } = await authorization.authorizationUrl(state);
    await this.options.store.putPending({
      stateHash: hashOf(state),
      owner,
      server,
      sealed: await this.options.sealer.seal(JSON.stringify(secrets), { purpose: 'pending', owner, server }),
      expiresAt: this.now() + AUTHORIZATION_TTL_MS,
    });
    return url.href;
  }

  async completeConnection(server: string, callback: ConnectionCallback): Promise<{ server: string }> {
    const authorization = this.authorization(server);
    if (!callback.state) throw new InputError('connection_state_invalid', 'The link carries no state: start connecting again from the conversation.');
    // Taken (deleted) first: whatever happens next, this state is spent.
    const pending = await this.options.store.takePending(hashOf(callback.state));
    if (!pending || pending.server !== server || pending.expiresAt <= this.now()) {
      throw new InputError('connection_state_invalid', 'This link is unknown, expired or already used: start connecting again from the conversation.');
    }
    if (callback.error) {
      throw new InputError('connection_refused', `The provider did not connect the account: ${callback.error}${callback.errorDescription ? ` (${callback.errorDescription})` : ''}.`);
    }
    if (!callback.code) throw new InputError('connection_refused', 'The provider sent no authorization code: start connecting again from the conversation.');
    const { owner } = pending;
    const secrets = JSON.parse(await this.options.sealer.open(pending.sealed, { purpose: 'pending', owner, server })) as { codeVerifier: string; redirectUrl: string };
    let tokens: OAuthTokens;
    try {
      tokens = await authorization.exchange(callback.code, secrets);
    } catch (error) {
      this.options.logger.warn('connection code exchange failed', { server, error: errorMessage(error) });
      throw new InputError('connection_refused', 'The provider would not exchange the authorization code for tokens: start connecting again from the conversation.', { cause: error });
    }
    const current = await this.options.store.readConnection(owner, server);
    await this.write(owner, server, { tokens, receivedAt: this.now() }, 'any', current ? current.version + 1 : 1, new Date(this.now()).toISOString());
    this.options.logger.info('connection stored', { server, scopes: tokens.scope ?? '', refreshable: tokens.refresh_token !== undefined });
    await this.options.onConnected?.(owner, server).catch((error: unknown) => {
      this.options.logger.warn('listing the tools of a new connection failed', { server, error: errorMessage(error) });
    });
    return { server };
  }

  /**
   * The owner's access token for the server, renewed first when it expires within
   * refreshBeforeExpirySeconds; undefined when the owner has no (usable) connection.
   */
  async accessToken(owner: string | undefined, server: string): Promise<string | undefined> {
    const held = await this.read(owner, server);
    if (!held) return undefined;
    if (!this.expiresSoon(held, server)) return held.secrets.tokens.access_token;
    if (!held.secrets.tokens.refresh_token) return this.expired(held) ? undefined : held.secrets.tokens.access_token;
    return this.renewOnce(owner, server, held.secrets.tokens.access_token);
  }

  /** The server refused `used` (401): a newer stored token, else a renewed one; undefined when the connection is gone. */
  async afterUnauthorized(owner: string | undefined, server: string, used: string): Promise<string | undefined> {
    const held = await this.read(owner, server);
    if (!held) return undefined;
    if (held.secrets.tokens.access_token !== used && !this.expiresSoon(held, server)) return held.secrets.tokens.access_token;
    return this.renewOnce(owner, server, used);
  }

  async listConnections(owner: string | undefined): Promise<UserConnection[]> {
    return Promise.all([...this.options.servers.keys()].map(async (server): Promise<UserConnection> => {
      const record = await this.options.store.readConnection(owner, server);
      if (!record) return { server, connected: false };
      return { server, connected: true, scopes: record.scopes, ...(record.tokenExpiresAt ? { expiresAt: record.tokenExpiresAt } : {}), connectedAt: record.connectedAt };
    }));
  }

  async disconnect(owner: string | undefined, server: string): Promise<void> {
    const authorization = this.authorization(server);
    const held = await this.read(owner, server).catch(() => undefined);
    if (held) {
      try {
        const revoked = await authorization.revoke(held.secrets.tokens);
        this.options.logger.info('connection revoked', { server, atProvider: revoked });
      } catch (error) {
        // Forgotten all the same: the owner asked for it, and the tokens expire at the provider.
        this.options.logger.warn('connection revocation failed', { server, error: errorMessage(error) });
      }
    }
    await this.options.store.deleteConnection(owner, server);
  }

  /** Forgets a connection the provider no longer honours (its refresh refused), unless another process renewed it meanwhile. */
  private async forget(owner: string | undefined, server: string, version: number): Promise<void> {
    await this.options.store.deleteConnection(owner, server, version);
  }

  /**
   * After a refused refresh: the tokens another process stored meanwhile, if any. Its refresh may
   * have been answered at the same moment as ours was refused, and its write may land a little
   * later, so the store is read a few times over about two seconds before the grant is given up.
   */
  private async renewedElsewhere(owner: string | undefined, server: string, version: number): Promise<Held | undefined> {
    for (const waitMs of [0, 100, 200, 400, 800, 1_000]) {
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      const latest = await this.read(owner, server);
      if (!latest) return undefined;
      if (latest.record.version !== version) return latest;
    }
    return undefined;
  }

  private renewOnce(owner: string | undefined, server: string, used: string): Promise<string | undefined> {
    const key = JSON.stringify([owner ?? null, server]);
    let renewal = this.renewals.get(key);
    if (!renewal) {
      renewal = this.renew(owner, server, used).finally(() => this.renewals.delete(key));
      this.renewals.set(key, renewal);
    }
    return renewal;
  }

  private async renew(owner: string | undefined, server: string, used: string): Promise<string | undefined> {
    const held = await this.read(owner, server);
    if (!held) return undefined;
    // Another process renewed meanwhile: its token.
    if (held.secrets.tokens.access_token !== used && !this.expiresSoon(held, server)) return held.secrets.tokens.access_token;
    const refreshToken = held.secrets.tokens.refresh_token;
    if (!refreshToken) {
      await this.forget(owner, server, held.record.version);
      return undefined;
    }
    let tokens: OAuthTokens;
    try {
      tokens = await this.authorization(server).refresh(refreshToken);
    } catch (error) {
      // Refused: perhaps another process spent this refresh token first; then its tokens are (about to be) stored.
      const latest = await this.renewedElsewhere(owner, server, held.record.version);
      if (latest) return latest.secrets.tokens.access_token;
      this.options.logger.warn('connection refresh refused: the owner must connect again', { server, error: errorMessage(error) });
      await this.forget(owner, server, held.record.version);
      return undefined;
    }
    const stored = await this.write(owner, server, { tokens, receivedAt: this.now() }, { version: held.record.version }, held.record.version + 1, held.record.connectedAt);
    if (!stored) {
      const latest = await this.read(owner, server);
      return latest?.secrets.tokens.access_token;
    }
    this.options.logger.info('connection refreshed', { server });
    return tokens.access_token;
  }

  private async read(owner: string | undefined, server: string): Promise<Held | undefined> {
    const record = await this.options.store.readConnection(owner, server);
    if (!record) return undefined;
    const secrets = JSON.parse(await this.options.sealer.open(record.sealed, { purpose: 'connection', owner, server })) as ConnectionSecrets;
    return { record, secrets };
  }

  private async write(owner: string | undefined, server: string, secrets: ConnectionSecrets, expected: { version: number } | 'any', version: number, connectedAt: string): Promise<boolean> {
    const expiresIn = secrets.tokens.expires_in;
    return this.options.store.writeConnection({
      owner,
      server,
      sealed: await this.options.sealer.seal(JSON.stringify(secrets), { purpose: 'connection', owner, server }),
      version,
      connectedAt,
      scopes: (secrets.tokens.scope ?? '').split(/\s+/).filter(Boolean),
      ...(expiresIn === undefined ? {} : { tokenExpiresAt: new Date(secrets.receivedAt + expiresIn * 1000).toISOString() }),
    }, expected);
  }

  private expiresSoon(held: Held, server: string): boolean {
    const expiresIn = held.secrets.tokens.expires_in;
    if (expiresIn === undefined) return false;
    const margin = this.authorization(server).server.oauth.refreshBeforeExpirySeconds * 1000;
    return this.now() >= held.secrets.receivedAt + expiresIn * 1000 - margin;
  }

  private expired(held: Held): boolean {
    const expiresIn = held.secrets.tokens.expires_in;
    return expiresIn !== undefined && this.now() >= held.secrets.receivedAt + expiresIn * 1000;
  }
}

/** States are stored by hash: a copy of the table holds no state a callback would accept. */
function hashOf(state: string): string {
  return createHash('sha256').update(state).digest('base64url');
}
