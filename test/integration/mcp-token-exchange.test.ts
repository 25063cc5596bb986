/**
 * The on-behalf-of exchanger (lib/adapters/mcp/oauth/on-behalf-of.ts) against a real token
 * endpoint and a real MCP server behind the SDK's bearer check (test/support/token-exchange-server.ts):
 * the RFC 8693 request it makes, where it finds the token endpoint, how long it keeps a token, and
 * what a refusal says. The whole path through `npm start` is test/e2e/token-exchange.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { OnBehalfOf, type OnBehalfOfOptions } from '../../lib/adapters/mcp/oauth/on-behalf-of.ts';
import type { OAuthOptions } from '../../lib/adapters/mcp/oauth/options.ts';
import { CallerToken, withCallerToken } from '../../lib/core/caller-token.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { ACCESS_TOKEN_TYPE, startTokenExchangeDouble, TOKEN_EXCHANGE_GRANT, type TokenExchangeDouble } from '../support/token-exchange-server.ts';

const ALICE = 'alice-own-token-11aa22bb33cc';
const BOB = 'bob-own-token-44dd55ee66ff';
const MALLORY = 'mallory-own-token-77gg88hh';
const SECRET = 'exchange-client-secret-9z8y';

const exchangeAuth = (extra: Partial<OnBehalfOfOptions> = {}): OnBehalfOfOptions => ({ mode: 'token-exchange', subjectTokenType: ACCESS_TOKEN_TYPE, refreshBeforeExpirySeconds: 60, ...extra });
const confidentialClient = (issuer: string) => ({ grant: 'authorization_code', clientId: 'agent', clientSecret: SECRET, authorizationServer: issuer, privateKeyAlgorithm: 'RS256', redirectUrl: 'http://localhost/cb', clientName: 'agent', refreshBeforeExpirySeconds: 60 }) as OAuthOptions;
const as = <T>(token: string, work: () => Promise<T>) => withCallerToken(new CallerToken(token), work);

describe('on-behalf-of tokens (RFC 8693) against a confidential client\'s token endpoint', () => {
  let identity: TokenExchangeDouble;
  beforeAll(async () => {
    identity = await startTokenExchangeDouble({
      users: { [ALICE]: 'alice', [BOB]: 'bob', [MALLORY]: 'mallory' },
      refused: ['mallory'],
      clientId: 'agent',
      clientSecret: SECRET,
      quotesSubjectInRefusals: true,
      expiresInSeconds: 600,
      notes: { alice: ['alpha'], bob: ['beta'] },
    });
  });
  afterAll(() => identity?.close());

  it('sends the RFC 8693 request (with audience and scope when configured) to the configured token endpoint, with the client\'s Basic credentials', async () => {
    const exchanger = new OnBehalfOf({ name: 'notes', url: identity.url, auth: exchangeAuth({ tokenEndpoint: identity.tokenEndpoint, audience: 'notes-api', scopes: ['notes:read', 'notes:list'] }), oauth: confidentialClient(identity.issuer) }, { logger: recordingLogger(), network: { allowLoopback: true } });

    const token = await as(ALICE, () => exchanger.ready());

    expect(identity.issued).toContain(token);
    expect(identity.exchanges.at(-1)).toEqual({
      status: 200,
      clientId: 'agent',
      body: { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: ALICE, subject_token_type: ACCESS_TOKEN_TYPE, requested_token_type: ACCESS_TOKEN_TYPE, resource: identity.url, audience: 'notes-api', scope: 'notes:read notes:list' },
    });
  });

  it('reaches a configured token endpoint of another origin than the authorization server: agent.yml named it', async () => {
    const elsewhere = identity.tokenEndpoint.replace('//localhost:', '//127.0.0.1:');
    const exchanger = new OnBehalfOf({ name: 'notes', url: identity.url, auth: exchangeAuth({ tokenEndpoint: elsewhere }), oauth: confidentialClient(identity.issuer) }, { logger: recordingLogger(), network: { allowLoopback: true } });

    const token = await as(BOB, () => exchanger.ready());

    expect(identity.issued).toContain(token);
  });

  it('keeps each caller\'s token until refreshBeforeExpirySeconds before it expires, then exchanges again', async () => {
    let now = 1_000_000;
    const exchanger = new OnBehalfOf({ name: 'notes', url: identity.url, auth: exchangeAuth(), oauth: confidentialClient(identity.issuer) }, { logger: recordingLogger(), network: { allowLoopback: true }, now: () => now });
    const before = identity.exchanges.length;

    const first = await as(ALICE, () => exchanger.ready());
    const bob = await as(BOB, () => exchanger.ready());
    now += 539_000; // 600 s lifetime, renewed 60 s before: still kept
    const kept = await as(ALICE, () => exchanger.ready());
    now += 2_000;
    const renewed = await as(ALICE, () => exchanger.ready());

    expect(kept).toBe(first);
    expect(bob).not.toBe(first);
    expect(renewed).not.toBe(first);
    expect(identity.exchanges.slice(before).map((exchange) => exchange.body['subject_token'])).toEqual([ALICE, BOB, ALICE]);
  });

  it('exchanges again after the MCP server turned the token away (401)', async () => {
    const exchanger = new OnBehalfOf({ name: 'notes', url: identity.url, auth: exchangeAuth(), oauth: confidentialClient(identity.issuer) }, { logger: recordingLogger(), network: { allowLoopback: true } });
    const first = await as(ALICE, () => exchanger.ready());
    const refusing = exchanger.wrapFetch(async () => new Response('', { status: 401 }));

    await as(ALICE, () => refusing(identity.url, { method: 'POST' }));
    const second = await as(ALICE, () => exchanger.ready());

    expect(second).not.toBe(first);
  });

  it('refuses with the endpoint\'s reason, the caller\'s token replaced even where the endpoint quoted it, and logs no secret', async () => {
    const logger = recordingLogger();
    const exchanger = new OnBehalfOf({ name: 'notes', url: identity.url, auth: exchangeAuth(), oauth: confidentialClient(identity.issuer) }, { logger, network: { allowLoopback: true } });

    const refusal = (await as(MALLORY, () => exchanger.ready()).then(() => undefined, (error: unknown) => error)) as Error & { code: string };

    expect(refusal.code).toBe('mcp_token_exchange_refused');
    expect(refusal.message).toBe('MCP server "notes" was not called: exchanging the user\'s token for one of this server was refused (invalid_grant: mallory may not use this resource (subject_token=[redacted]) (HTTP 400)).');
    expect(logger.entries).toEqual([expect.objectContaining({ level: 'warn', message: 'mcp token exchange refused', fields: expect.objectContaining({ server: 'notes', status: 400, error: 'invalid_grant' }) })]);
    expect(JSON.stringify(logger.entries)).not.toContain(MALLORY);
    expect(JSON.stringify(logger.entries)).not.toContain(SECRET);
  });

  it('says there is no user token outside a caller\'s request', async () => {
    const exchanger = new OnBehalfOf({ name: 'notes', url: identity.url, auth: exchangeAuth(), oauth: confidentialClient(identity.issuer) }, { logger: recordingLogger(), network: { allowLoopback: true } });

    await expect(exchanger.ready()).rejects.toMatchObject({ code: 'mcp_caller_token_missing', message: expect.stringContaining('this turn has no user token') });
  });

  it('gives each call through the gateway its own caller\'s token on one shared connection', async () => {
    const onBehalfOf = new OnBehalfOf({ name: 'notes', url: identity.url, auth: exchangeAuth(), oauth: confidentialClient(identity.issuer) }, { logger: recordingLogger(), network: { allowLoopback: true } });
    const gateway = createMcpGateway({
      servers: [{ name: 'notes', type: 'http', url: identity.url, headers: {}, onBehalfOf }],
      settings: { connectTimeoutSeconds: 10, catalogTtlSeconds: 60, reconnectMaxDelaySeconds: 1, maxResultBytes: 1_000_000 },
      logger: recordingLogger(),
    });
    try {
      const call = () => gateway.callTool('my_notes', {}, { signal: AbortSignal.timeout(10_000), timeoutMs: 10_000 });
      await as(ALICE, () => gateway.listTools());
      const [alice, bob] = await Promise.all([as(ALICE, call), as(BOB, call)]);
      const nobody = await call().catch((error: Error) => error.message);

      expect(alice.text).toBe('notes of alice: alpha');
      expect(bob.text).toBe('notes of bob: beta');
      expect(nobody).toContain('this turn has no user token');
    } finally {
      await gateway.close();
    }
  });
});

describe('a server called on its callers\' behalf, first reached by a caller it refuses', () => {
  let identity: TokenExchangeDouble;
  beforeAll(async () => {
    identity = await startTokenExchangeDouble({ users: { [ALICE]: 'alice', [MALLORY]: 'mallory' }, refused: ['mallory'], clientId: 'agent', clientSecret: SECRET, notes: { alice: ['alpha'] } });
  });
  afterAll(() => identity?.close());

  it('connects at once for the next caller: a refused caller says nothing of the server', async () => {
    const onBehalfOf = new OnBehalfOf({ name: 'notes', url: identity.url, auth: exchangeAuth(), oauth: confidentialClient(identity.issuer) }, { logger: recordingLogger(), network: { allowLoopback: true } });
    // A backoff of a minute would hold the next caller out, were the refusal counted against the server.
    const gateway = createMcpGateway({
      servers: [{ name: 'notes', type: 'http', url: identity.url, headers: {}, onBehalfOf }],
      settings: { connectTimeoutSeconds: 10, catalogTtlSeconds: 60, reconnectMaxDelaySeconds: 60, maxResultBytes: 1_000_000 },
      logger: recordingLogger(),
    });
    try {
      expect(await as(MALLORY, () => gateway.listTools())).toEqual([]);
      await as(ALICE, () => gateway.listTools());
      const alice = await as(ALICE, () => gateway.callTool('my_notes', {}, { signal: AbortSignal.timeout(10_000), timeoutMs: 10_000 }));

      expect(alice.text).toBe('notes of alice: alpha');
    } finally {
      await gateway.close();
    }
  });
});

describe('on-behalf-of tokens for a public client', () => {
  let identity: TokenExchangeDouble;
  beforeAll(async () => {
    identity = await startTokenExchangeDouble({ users: { [ALICE]: 'alice' }, clientId: 'public-agent', notes: {} });
  });
  afterAll(() => identity?.close());

  it('finds the token endpoint through the MCP server\'s protected resource metadata and names itself with client_id', async () => {
    const client = { grant: 'authorization_code', clientId: 'public-agent', privateKeyAlgorithm: 'RS256', redirectUrl: 'http://localhost/cb', clientName: 'agent', refreshBeforeExpirySeconds: 60 } as OAuthOptions;
    const exchanger = new OnBehalfOf({ name: 'notes', url: identity.url, auth: exchangeAuth(), oauth: client }, { logger: recordingLogger(), network: { allowLoopback: true } });

    await as(ALICE, () => exchanger.ready());

    expect(identity.exchanges.at(-1)).toMatchObject({ status: 200, clientId: 'public-agent', body: { client_id: 'public-agent', subject_token: ALICE, resource: identity.url } });
  });
});
