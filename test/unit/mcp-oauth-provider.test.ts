import { describe, expect, it } from 'vitest';
import { ServerOAuthProvider } from '../../lib/adapters/mcp/oauth/provider.ts';
import type { OAuthServerRecord } from '../../lib/adapters/mcp/oauth/record.ts';
import { createMemoryTokenStore } from '../../lib/adapters/mcp/oauth/store.ts';
import { oauthSchema } from '../../lib/config/schema.ts';
import { silentLogger } from '../../lib/core/logger.ts';

const URL_OF_TICKETS = 'https://tickets.example.com/mcp';
const granted = (token: string, fields: Partial<OAuthServerRecord> = {}): OAuthServerRecord => ({
  serverUrl: URL_OF_TICKETS,
  tokens: { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'read', refresh_token: `refresh-of-${token}` },
  receivedAt: Date.now(),
  ...fields,
});

function providerWith(records: Record<string, OAuthServerRecord>, fields: Record<string, unknown> = {}) {
  const store = createMemoryTokenStore(records);
  const provider = new ServerOAuthProvider({ name: 'tickets', url: URL_OF_TICKETS, settings: oauthSchema.parse(fields) }, { store, logger: silentLogger });
  return { store, provider };
}

describe('the OAuth provider of one MCP server', () => {
  it('hands out the stored tokens of its server URL', async () => {
    const { provider } = providerWith({ tickets: granted('access-1') });
    expect((await provider.tokens())?.access_token).toBe('access-1');
  });

  it('ignores tokens stored under its name for another URL: they were never meant for this server', async () => {
    const { provider } = providerWith({ tickets: granted('access-1', { serverUrl: 'https://old-tickets.example.com/mcp' }) });
    await expect(provider.tokens()).resolves.toBeUndefined();
  });

  it('offers a token another process stored to retry with, but not the one just refused', async () => {
    const { store, provider } = providerWith({ tickets: granted('access-1') });
    await provider.tokens();

    await expect(provider.newerAccessToken('access-1')).resolves.toBeUndefined();
    await store.update('tickets', () => granted('access-2'));
    await expect(provider.newerAccessToken('access-1')).resolves.toBe('access-2');
  });

  it('forgets only the tokens it used when the authorization server rejects them', async () => {
    const { store, provider } = providerWith({ tickets: granted('access-1') });
    await provider.tokens();
    await store.update('tickets', () => granted('access-2'));

    await provider.invalidateCredentials('tokens');
    expect((await store.read('tickets'))?.tokens?.access_token).toBe('access-2');
    await provider.tokens();
    await provider.invalidateCredentials('tokens');
    expect((await store.read('tickets'))?.tokens).toBeUndefined();
  });

  it('at run time refuses to send a person anywhere, naming the login command and the scope the grant lacks', async () => {
    const { store, provider } = providerWith({ tickets: granted('access-1') });
    await provider.tokens();

    const redirect = provider.redirectToAuthorization(new URL('https://login.example.com/authorize?scope=read%20write'));

    await expect(redirect).rejects.toMatchObject({
      code: 'mcp_authorization_required',
      message: expect.stringContaining('for scope "read write": run `npm run mcp-login -- tickets`'),
    });
    expect((await store.read('tickets'))?.requiredScope).toBe('read write');
  });

  it('does not register a client at run time: that is the login\'s business', async () => {
    const { provider } = providerWith({});
    await expect(provider.clientInformation()).rejects.toMatchObject({ code: 'mcp_authorization_required' });
  });

  it('says a login will not help when the server wants a scope the grant already has', async () => {
    const { provider } = providerWith({ tickets: granted('access-1') });
    await provider.tokens();
    await expect(provider.insufficientScope('read')).rejects.toMatchObject({ code: 'mcp_insufficient_scope' });
  });

  it('hands out the configured client, bound to its authorization server', async () => {
    const { provider } = providerWith({}, { clientId: 'agent', clientSecret: 's3cret', authorizationServer: 'https://login.example.com' });
    await expect(provider.clientInformation()).resolves.toEqual({ client_id: 'agent', client_secret: 's3cret', issuer: 'https://login.example.com' });
  });
});
