/**
 * UserConnections over the memory store, with a stand-in for the provider (the real OAuth requests
 * run end to end in test/e2e/per-user-connections.test.ts): the state's life (single use, ten
 * minutes, its own server only) and what is stored.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, it } from 'vitest';
import type { PerUserAuthorization } from '../../lib/adapters/mcp/per-user/authorization.ts';
import { createMemoryConnectionStore } from '../../lib/adapters/mcp/per-user/connection-store.ts';
import { AUTHORIZATION_TTL_MS, UserConnections } from '../../lib/adapters/mcp/per-user/connections.ts';
import { createKeySealer } from '../../lib/adapters/mcp/per-user/sealer.ts';
import { silentLogger } from '../../lib/core/logger.ts';

function provider(name: string) {
  const exchanged: string[] = [];
  const stand: Partial<PerUserAuthorization> = {
    server: { name, url: `https://${name}.example.com/mcp`, oauth: { refreshBeforeExpirySeconds: 60 } as PerUserAuthorization['server']['oauth'] },
    async authorizationUrl(state: string) {
      return { url: new URL(`https://login.example.com/authorize?state=${state}`), secrets: { codeVerifier: 'verifier', redirectUrl: `https://agent.example.com/connections/${name}/callback` } };
    },
    async exchange(code: string): Promise<OAuthTokens> {
      exchanged.push(code);
      return { access_token: `access-${code}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${code}`, scope: 'crm.read' };
    },
  };
  return { authorization: stand as PerUserAuthorization, exchanged };
}

function connections() {
  let now = Date.UTC(2030, 0, 1);
  const store = createMemoryConnectionStore();
  const crm = provider('crm');
  const mail = provider('mail');
  const service = new UserConnections({
    servers: new Map([['crm', crm.authorization], ['mail', mail.authorization]]),
    store,
    sealer: createKeySealer(randomBytes(32)),
    logger: silentLogger,
    now: () => now,
  });
  const stateOf = (url: string) => new URL(url).searchParams.get('state')!;
  return { service, store, crm, stateOf, advance: (ms: number) => (now += ms) };
}

describe('UserConnections', () => {
  it('completes a connection once for the owner who started it, and stores no token in the clear', async () => {
    const { service, store, crm, stateOf } = connections();
    const state = stateOf(await service.startConnection('alice', 'crm'));

    await service.completeConnection('crm', { code: 'first-code', state });

    expect(await service.accessToken('alice', 'crm')).toBe('access-first-code');
    expect(await service.accessToken('bob', 'crm')).toBeUndefined();
    const stored = JSON.stringify(await store.readConnection('alice', 'crm'));
    expect(stored).not.toContain('access-first-code');
    expect(stored).not.toContain('refresh-first-code');
    await expect(service.completeConnection('crm', { code: 'second-code', state })).rejects.toMatchObject({ code: 'connection_state_invalid' });
    expect(crm.exchanged).toEqual(['first-code']);
  });

  it('refuses a state after ten minutes, for another server, or one never given', async () => {
    const { service, crm, stateOf, advance } = connections();
    const late = stateOf(await service.startConnection('alice', 'crm'));
    const elsewhere = stateOf(await service.startConnection('alice', 'crm'));
    advance(AUTHORIZATION_TTL_MS + 1);

    await expect(service.completeConnection('crm', { code: 'c', state: late })).rejects.toMatchObject({ code: 'connection_state_invalid' });
    await expect(service.completeConnection('mail', { code: 'c', state: elsewhere })).rejects.toMatchObject({ code: 'connection_state_invalid' });
    await expect(service.completeConnection('crm', { code: 'c', state: 'made-up' })).rejects.toMatchObject({ code: 'connection_state_invalid' });
    await expect(service.completeConnection('crm', { code: 'c' })).rejects.toMatchObject({ code: 'connection_state_invalid' });
    await expect(service.completeConnection('nowhere', { code: 'c', state: 'x' })).rejects.toMatchObject({ code: 'connection_server_unknown' });
    expect(crm.exchanged).toEqual([]);
  });

  it("spends the state on the provider's refusal, and exchanges nothing", async () => {
    const { service, crm, stateOf } = connections();
    const state = stateOf(await service.startConnection('alice', 'crm'));

    await expect(service.completeConnection('crm', { state, error: 'access_denied' })).rejects.toMatchObject({ code: 'connection_refused' });
    await expect(service.completeConnection('crm', { code: 'c', state })).rejects.toMatchObject({ code: 'connection_state_invalid' });
    expect(crm.exchanged).toEqual([]);
  });

  it('lets two processes that renew at once keep the winner: the loser, refused its spent refresh token, takes the stored tokens', async () => {
    // Prepare: one store, two processes, a provider whose refresh tokens work once (rotation)
    const store = createMemoryConnectionStore();
    const sealer = createKeySealer(randomBytes(32));
    let now = Date.UTC(2030, 0, 1);
    const spent = new Set<string>();
    let issued = 0;
    let refreshStarted!: () => void;
    const bothAsked = new Promise<void>((resolve) => (refreshStarted = resolve));
    let asking = 0;
    const rotating = provider('crm');
    Object.assign(rotating.authorization, {
      async refresh(refreshToken: string): Promise<OAuthTokens> {
        // Both processes send their refresh before either answer arrives, as racing containers do.
        if (++asking === 2) refreshStarted();
        await bothAsked;
        if (spent.has(refreshToken)) throw new Error('invalid_grant: refresh token already used');
        spent.add(refreshToken);
        issued++;
        return { access_token: `access-renewed-${issued}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-renewed-${issued}` };
      },
    });
    const processOf = () => new UserConnections({ servers: new Map([['crm', rotating.authorization]]), store, sealer, logger: silentLogger, now: () => now });
    const [first, second] = [processOf(), processOf()];
    const state = new URL(await first.startConnection('alice', 'crm')).searchParams.get('state')!;
    await first.completeConnection('crm', { code: 'the-code', state });
    now += 3600_000 - 30_000; // within refreshBeforeExpirySeconds (60) of expiring

    // Act
    const tokens = await Promise.all([first.accessToken('alice', 'crm'), second.accessToken('alice', 'crm')]);

    // Assess: one renewal reached the provider and was kept; both use its token; the connection stays
    expect(issued).toBe(1);
    expect(tokens).toEqual(['access-renewed-1', 'access-renewed-1']);
    expect(await first.listConnections('alice')).toMatchObject([{ server: 'crm', connected: true }]);
  });
});
