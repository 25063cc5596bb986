/**
 * OAuth 2.1 for remote MCP servers, end to end over real HTTP: agent.yml's `oauth` block, the login
 * flow (start → URL, callback → store), the 0600 token file, and the gateway as buildAgent builds
 * it, against an authorization server and an MCP resource server made of the MCP SDK's own server
 * parts (test/support/oauth-server.ts).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileTokenStore, TOKEN_FILE_NAME } from '../../lib/adapters/mcp/oauth/file-store.ts';
import { completeLogin, findLoginServer, startLogin, type LoginDependencies } from '../../lib/adapters/mcp/oauth/login.ts';
import type { OAuthTokenStore } from '../../lib/adapters/mcp/oauth/store.ts';
import { createConfiguredGateway } from '../../lib/configured-gateway.ts';
import { parseConfig, type AgentConfig } from '../../lib/config/load.ts';
import { createJsonLogger } from '../../lib/core/logger.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { READ_SCOPE, startOAuthServerDouble, WRITE_SCOPE, type OAuthServerDouble } from '../support/oauth-server.ts';

const CLIENT_SECRET = 'client-secret-of-the-agent-7f3a';
/** Every line any part logged in this file, checked at the end for secrets. */
const logLines: string[] = [];
const logger = createJsonLogger('debug', (line) => logLines.push(line) > 0);
const secretsSeen = new Set<string>([CLIENT_SECRET]);

let directory: string;
let double: OAuthServerDouble;
let gateways: ToolGateway[];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'mcp-oauth-'));
  gateways = [];
});

afterEach(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  for (const secret of double?.secretsIssued ?? []) secretsSeen.add(secret);
  await double?.close();
  await rm(directory, { recursive: true, force: true });
});

function configFor(oauth: string, url = double.url, type = 'http'): AgentConfig {
  const text = `
tools: { connectTimeoutSeconds: 20, reconnectMaxDelaySeconds: 1 }
mcpServers:
  notes:
    type: ${type}
    url: ${url}
    oauth: ${oauth}
`;
  return parseConfig(text, { source: join(directory, 'agent.yml'), environment: { NOTES_CLIENT_SECRET: CLIENT_SECRET } });
}

function tokenFile(): string {
  return join(directory, TOKEN_FILE_NAME);
}

/** A new process's view of the same token file (nothing shared in memory). */
function fileStore(): OAuthTokenStore {
  return createFileTokenStore(tokenFile());
}

function gatewayFor(config: AgentConfig, store = fileStore()): ToolGateway {
  const gateway = createConfiguredGateway(config, { logger, oauthTokenStore: store });
  gateways.push(gateway);
  return gateway;
}

const call = (gateway: ToolGateway, name: string) => gateway.callTool(name, {}, { signal: AbortSignal.timeout(20_000), timeoutMs: 20_000 });

/** The operator's login: start, the browser (the authorization server approves at once), the callback. */
async function logIn(config: AgentConfig, store = fileStore()): Promise<URL> {
  const server = findLoginServer(config, 'notes');
  const dependencies: LoginDependencies = { store, logger };
  const started = await startLogin(server, dependencies);
  if (started.status !== 'authorize') throw new Error('expected an authorization URL');
  const approval = await fetch(started.authorizationUrl, { redirect: 'manual' });
  const callback = new URL(approval.headers.get('location')!);
  await completeLogin(server, dependencies, callback.searchParams);
  return started.authorizationUrl;
}

const tokenGrants = () => double.events.filter((event) => event.side === 'token').map((event) => event.grant);
/** Statuses of MCP requests from `from` on (the login's own unauthenticated probe comes before). */
const mcpStatuses = (from = 0) => double.events.slice(from).flatMap((event) => (event.side === 'mcp' ? [event.status] : []));

describe('an MCP server behind OAuth (authorization code)', () => {
  const AUTHORIZATION_CODE = '{ redirectUrl: "http://localhost:8976/callback" }';

  it('is usable once an operator logged in: the token file is 0600 and the token is bound to the server', async () => {
    double = await startOAuthServerDouble();
    const config = configFor(AUTHORIZATION_CODE);

    const authorizationUrl = await logIn(config);
    const afterLogin = double.events.length;
    const gateway = gatewayFor(config);
    const tools = await gateway.listTools();
    const whoami = await call(gateway, 'whoami');

    // Discovery led to the authorization server, with PKCE, the resource and the scope strategy's choice.
    expect(authorizationUrl.origin).toBe(new URL(double.issuer).origin);
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      response_type: 'code',
      code_challenge_method: 'S256',
      resource: double.url,
      scope: `${READ_SCOPE} offline_access`,
      redirect_uri: 'http://localhost:8976/callback',
    });
    expect(tools.map((tool) => tool.name)).toEqual(['whoami', 'write-note']);
    expect(whoami).toEqual({ ok: true, text: `scopes: ${READ_SCOPE} offline_access` });
    expect((await stat(tokenFile())).mode & 0o777).toBe(0o600);
    expect(double.events).toContainEqual(expect.objectContaining({ side: 'token', grant: 'authorization_code', resource: double.url }));
    // The resource server refuses tokens bound to another resource (expectedResource): every request passed.
    expect(mcpStatuses(afterLogin).filter((status) => status === 401 || status === 403)).toEqual([]);
  });

  it('without a login, reports the server unavailable with the login command, and picks up a login made by another process', async () => {
    double = await startOAuthServerDouble();
    const config = configFor(AUTHORIZATION_CODE);
    const gateway = gatewayFor(config);

    const before = await gateway.status();
    const beforeLogin = double.events.length;
    await logIn(config, fileStore());
    // The failed server is tried again in the background (at most tools.reconnectMaxDelaySeconds apart).
    let tools: Awaited<ReturnType<typeof gateway.listTools>> = [];
    await vi.waitFor(async () => {
      tools = await gateway.listTools();
      expect(tools.map((tool) => tool.name)).toContain('whoami');
    }, { timeout: 15_000, interval: 200 });

    expect(before).toEqual([expect.objectContaining({ name: 'notes', status: 'failed', error: expect.stringContaining('run `npm run mcp-login -- notes`') })]);
    expect(tools.map((tool) => tool.name)).toContain('whoami');
    // At run time nothing registered a client or asked for a token: that is the login's business.
    expect(tokenGrants()).toEqual(['authorization_code']);
    // Every attempt before the login (the first connect, background retries) was refused, and asked for nothing.
    const refusedBefore = mcpStatuses(0).slice(0, beforeLogin);
    expect(refusedBefore.length).toBeGreaterThan(0);
    expect(new Set(refusedBefore)).toEqual(new Set([401]));
  });

  it('renews a token about to expire before using it, so the server never sees a stale one', async () => {
    double = await startOAuthServerDouble();
    const config = configFor(AUTHORIZATION_CODE);
    await logIn(config);
    const store = fileStore();
    const loggedIn = await store.read('notes');
    // As if an hour had passed since the login (the tokens say expires_in 3600).
    await store.update('notes', (record) => ({ ...record!, receivedAt: Date.now() - 3_600_000 }));
    const afterLogin = double.events.length;

    const gateway = gatewayFor(config);
    const result = await call(gateway, 'whoami');
    const renewed = await store.read('notes');

    expect(result.ok).toBe(true);
    expect(tokenGrants()).toEqual(['authorization_code', 'refresh_token']);
    expect(mcpStatuses(afterLogin)).not.toContain(401);
    const tokensUsed = new Set(double.events.slice(afterLogin).flatMap((event) => (event.side === 'mcp' && event.token ? [event.token] : [])));
    expect(tokensUsed).toEqual(new Set([renewed!.tokens!.access_token]));
    expect(renewed!.tokens!.refresh_token).not.toBe(loggedIn!.tokens!.refresh_token);
  });

  it('refreshes on 401 when the server stops accepting the token, and the call goes through', async () => {
    double = await startOAuthServerDouble();
    const config = configFor(AUTHORIZATION_CODE);
    await logIn(config);
    const gateway = gatewayFor(config);
    await gateway.listTools();

    double.revokeAccessTokens();
    const afterRevocation = double.events.length;
    const result = await call(gateway, 'whoami');

    expect(result.ok).toBe(true);
    expect(tokenGrants()).toEqual(['authorization_code', 'refresh_token']);
    expect(mcpStatuses(afterRevocation)).toEqual([401, 200]);
  });

  it('uses the token another process refreshed instead of refreshing again with a spent refresh token', async () => {
    double = await startOAuthServerDouble();
    const config = configFor(AUTHORIZATION_CODE);
    await logIn(config);
    // Two containers, each with its own view of the one token store.
    const [first, second] = [gatewayFor(config), gatewayFor(config)];
    await first.listTools();
    await second.listTools();

    double.revokeAccessTokens();
    const fromSecond = await call(second, 'whoami');
    const fromFirst = await call(first, 'whoami');

    expect([fromSecond.ok, fromFirst.ok]).toEqual([true, true]);
    // The refresh token rotates: had the first container refreshed too, it would have been refused.
    expect(tokenGrants()).toEqual(['authorization_code', 'refresh_token']);
  });

  it('asks for more scope through the login when a tool needs it (step-up), keeping what was granted', async () => {
    double = await startOAuthServerDouble();
    const config = configFor(AUTHORIZATION_CODE);
    await logIn(config);
    const gateway = gatewayFor(config);
    await gateway.listTools();

    const refused = call(gateway, 'write-note');
    await expect(refused).rejects.toThrow(/needs a person to authorize this service for scope "notes:read offline_access notes:write": run `npm run mcp-login -- notes`/);
    expect((await fileStore().read('notes'))?.requiredScope).toBe(`${READ_SCOPE} offline_access ${WRITE_SCOPE}`);
    const secondLogin = await logIn(config);
    await gateway.listTools();
    const written = await call(gateway, 'write-note');

    expect(secondLogin.searchParams.get('scope')).toBe(`${READ_SCOPE} offline_access ${WRITE_SCOPE}`);
    expect(written).toEqual({ ok: true, text: 'written' });
    expect((await fileStore().read('notes'))?.requiredScope).toBeUndefined();
  });

  it('asks for the scope the first real request is challenged with, when the server lets initialize through without a token', async () => {
    // Its resource metadata offers a scope its tools do not accept: the challenge comes first (scope selection strategy).
    double = await startOAuthServerDouble({ openInitialize: true, resourceScopes: ['notes:profile'] });
    const config = configFor(AUTHORIZATION_CODE);

    const authorizationUrl = await logIn(config);
    const whoami = await call(gatewayFor(config), 'whoami');

    expect(authorizationUrl.searchParams.get('scope')).toBe(`${READ_SCOPE} offline_access`);
    expect(whoami).toEqual({ ok: true, text: `scopes: ${READ_SCOPE} offline_access` });
  });

  it('registers as a native application (SEP-837): the login command\'s redirect is a loopback listener', async () => {
    double = await startOAuthServerDouble();

    await logIn(configFor(AUTHORIZATION_CODE));

    expect(double.events.filter((event) => event.side === 'register')).toEqual([{ side: 'register', clientId: expect.any(String), applicationType: 'native' }]);
  });

  it('stops with a login that says why when the server moves to another authorization server, which is shown nothing of the old one (SEP-2352)', async () => {
    double = await startOAuthServerDouble();
    const moved = await startOAuthServerDouble();
    try {
      const config = configFor(AUTHORIZATION_CODE);
      await logIn(config);
      const gateway = gatewayFor(config);
      // A refresh on 401 first: the gateway has then discovered (and remembers) the first authorization server.
      expect(await call(gateway, 'whoami')).toMatchObject({ ok: true });
      double.revokeAccessTokens();
      expect(await call(gateway, 'whoami')).toMatchObject({ ok: true });
      const before = (await fileStore().read('notes'))!;
      double.nameAuthorizationServers([moved.issuer]);
      double.revokeAccessTokens();

      const refused = call(gateway, 'whoami');
      await expect(refused).rejects.toThrow(/needs a person to authorize this service \(it now names the authorization server http:\/\/localhost:\d+\/, and this service's client and tokens came from http:\/\/localhost:\d+\/.*\): run `npm run mcp-login -- notes`/);
      // Not even a registration at run time: that is the login's business.
      expect(moved.events).toEqual([]);
      const secondLogin = await logIn(config);

      const registered = moved.events.filter((event) => event.side === 'register').map((event) => event.clientId);
      expect(registered).toHaveLength(1);
      expect(new URL(secondLogin).origin).toBe(new URL(moved.issuer).origin);
      expect(secondLogin.searchParams.get('client_id')).toBe(registered[0]);
      expect(registered[0]).not.toBe(before.client!.client_id);
      // The new server saw one authorization code exchange by its own client: no old client, no old refresh token.
      expect(moved.events.filter((event) => event.side === 'token')).toEqual([expect.objectContaining({ grant: 'authorization_code', clientId: registered[0] })]);
      expect(JSON.stringify(moved.events)).not.toContain(before.tokens!.refresh_token!);
    } finally {
      await moved.close();
    }
  });

  it('works the same over legacy SSE, its own protected resource', async () => {
    double = await startOAuthServerDouble();
    const config = configFor(AUTHORIZATION_CODE, double.sseUrl, 'sse');

    const authorizationUrl = await logIn(config);
    const gateway = gatewayFor(config);
    const whoami = await call(gateway, 'whoami');

    expect(authorizationUrl.searchParams.get('resource')).toBe(double.sseUrl);
    expect(whoami).toEqual({ ok: true, text: `scopes: ${READ_SCOPE} offline_access` });
    expect(await gateway.status()).toEqual([expect.objectContaining({ transport: 'sse', status: 'connected' })]);
  });

  it.each([
    ['a callback with another state', (query: URLSearchParams) => query.set('state', 'forged'), /does not belong to the login in progress/],
    ['a refusal', (query: URLSearchParams) => ((query.delete('code'), query.set('error', 'access_denied'))), /did not authorize "notes" \(access_denied\)/],
  ])('refuses %s and stores no token', async (_case, tamper, message) => {
    double = await startOAuthServerDouble();
    const config = configFor(AUTHORIZATION_CODE);
    const server = findLoginServer(config, 'notes');
    const dependencies = { store: fileStore(), logger };
    const started = await startLogin(server, dependencies);
    if (started.status !== 'authorize') throw new Error('expected an authorization URL');
    const callback = new URL((await fetch(started.authorizationUrl, { redirect: 'manual' })).headers.get('location')!);
    tamper(callback.searchParams);

    await expect(completeLogin(server, dependencies, callback.searchParams)).rejects.toThrow(message);
    expect((await fileStore().read('notes'))?.tokens).toBeUndefined();
    expect(tokenGrants()).toEqual([]);
  });
});

describe('an MCP server behind OAuth (client credentials)', () => {
  // The secret is only ever presented to the authorization server agent.yml names.
  const clientCredentials = () => `{ grant: client_credentials, clientId: agent, clientSecret: "\${NOTES_CLIENT_SECRET}", authorizationServer: "${double.issuer}" }`;

  it('gets a token at the first 401 without a person, stores it, and a new process reuses it', async () => {
    double = await startOAuthServerDouble({ clients: [{ clientId: 'agent', clientSecret: CLIENT_SECRET }] });
    const config = configFor(clientCredentials());

    const first = await call(gatewayFor(config), 'whoami');
    const second = await call(gatewayFor(config), 'whoami');

    expect(first).toEqual({ ok: true, text: `scopes: ${READ_SCOPE}` });
    expect(second.ok).toBe(true);
    expect(tokenGrants()).toEqual(['client_credentials']);
    expect(double.events).toContainEqual(expect.objectContaining({ side: 'token', grant: 'client_credentials', scope: READ_SCOPE, resource: double.url }));
    expect((await fileStore().read('notes'))?.tokens?.access_token).toMatch(/^access-/);
  });

  it('asks for the scope a tool needs by itself (no person involved in a client_credentials step-up)', async () => {
    double = await startOAuthServerDouble({ clients: [{ clientId: 'agent', clientSecret: CLIENT_SECRET }] });
    const gateway = gatewayFor(configFor(clientCredentials()));

    const written = await call(gateway, 'write-note');

    expect(written).toEqual({ ok: true, text: 'written' });
    expect(double.events.filter((event) => event.side === 'token').map((event) => (event.side === 'token' ? event.scope : undefined))).toEqual([
      READ_SCOPE,
      `${READ_SCOPE} ${WRITE_SCOPE}`,
    ]);
  });

  it('fails with the authorization server\'s answer when the secret is wrong', async () => {
    double = await startOAuthServerDouble({ clients: [{ clientId: 'agent', clientSecret: 'another-secret-entirely' }] });

    const [status] = await gatewayFor(configFor(clientCredentials())).status();

    expect(status).toMatchObject({ status: 'failed', error: expect.stringMatching(/^client authentication failed/) });
  });
});

describe('what the OAuth flows logged', () => {
  afterAll(() => {
    logLines.length = 0;
  });

  it('names servers, grants and scopes, and never a token, code or secret', () => {
    expect(logLines.some((line) => line.includes('mcp oauth tokens stored'))).toBe(true);
    const leaked = [...secretsSeen].filter((secret) => logLines.some((line) => line.includes(secret)));
    expect(leaked).toEqual([]);
  });
});
