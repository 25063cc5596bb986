/**
 * What OAuth discovery may follow. A hostile (or broken) MCP server or authorization server names
 * the URLs the client goes to next: the protected resource metadata names the authorization
 * server, whose metadata names the token endpoint that receives the client secret. Against the
 * SDK-built double (test/support/oauth-server.ts), run as deployed (no loopback but the servers the
 * operator configured), each place it must not go is refused before any secret leaves, and a
 * recording "evil" endpoint proves that nothing reached it. Then the issuer checks: RFC 8414's
 * (the metadata names the server it was fetched from) and RFC 9207's `iss` in the login callback.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileTokenStore, TOKEN_FILE_NAME } from '../../lib/adapters/mcp/oauth/file-store.ts';
import { completeLogin, findLoginServer, startLogin } from '../../lib/adapters/mcp/oauth/login.ts';
import type { OAuthNetwork } from '../../lib/adapters/mcp/oauth/destinations.ts';
import { createConfiguredGateway } from '../../lib/configured-gateway.ts';
import { parseConfig, type AgentConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { READ_SCOPE, startOAuthServerDouble, startRecordingEndpoint, type OAuthServerDouble, type OAuthServerDoubleOptions, type RecordingEndpoint } from '../support/oauth-server.ts';

const CLIENT_SECRET = 'client-secret-of-the-agent-7f3a';

let directory: string;
let double: OAuthServerDouble | undefined;
let evil: RecordingEndpoint;
let gateways: ToolGateway[];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'mcp-oauth-discovery-'));
  evil = await startRecordingEndpoint();
  gateways = [];
});

afterEach(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await double?.close();
  double = undefined;
  await evil.close();
  await rm(directory, { recursive: true, force: true });
});

function configFor(oauth: string): AgentConfig {
  const text = `
tools: { connectTimeoutSeconds: 20, reconnectMaxDelaySeconds: 60 }
mcpServers:
  notes:
    type: http
    url: ${double!.url}
    oauth: ${oauth}
`;
  return parseConfig(text, { source: join(directory, 'agent.yml'), environment: { NOTES_CLIENT_SECRET: CLIENT_SECRET } });
}

const clientCredentials = () => `{ grant: client_credentials, clientId: agent, clientSecret: "\${NOTES_CLIENT_SECRET}", authorizationServer: "${double!.issuer}" }`;

/** As deployed: no loopback address but the MCP server and the authorization server agent.yml names. */
const deployed = (lookup?: OAuthNetwork['lookup']): OAuthNetwork => ({ allowLoopback: false, ...(lookup ? { lookup } : {}) });

function gatewayFor(config: AgentConfig, network: OAuthNetwork): ToolGateway {
  const gateway = createConfiguredGateway(config, { logger: silentLogger, oauthTokenStore: createFileTokenStore(join(directory, TOKEN_FILE_NAME)), oauthNetwork: network });
  gateways.push(gateway);
  return gateway;
}

const tokenRequests = () => double!.events.filter((event) => event.side === 'token');
const withClient = (more: OAuthServerDoubleOptions = {}): OAuthServerDoubleOptions => ({ clients: [{ clientId: 'agent', clientSecret: CLIENT_SECRET }], ...more });
const tokenEndpoint = (endpoint: () => string): OAuthServerDoubleOptions['tamperMetadata'] => (metadata) => ({ ...metadata, token_endpoint: endpoint() });

describe('OAuth discovery of a server with a client secret, as deployed', () => {
  it('gets a token from the authorization server agent.yml names, on the addresses the operator configured', async () => {
    double = await startOAuthServerDouble(withClient());

    const whoami = await gatewayFor(configFor(clientCredentials()), deployed()).callTool('whoami', {}, { signal: AbortSignal.timeout(20_000), timeoutMs: 20_000 });

    expect(whoami).toEqual({ ok: true, text: `scopes: ${READ_SCOPE}` });
    expect(tokenRequests()).toHaveLength(1);
  });

  it.each([
    ['a token endpoint over plain http on another host', tokenEndpoint(() => `${evil.url}/token`), /refused.*http:\/\/127\.0\.0\.1:\d+\/token/],
    ['a token endpoint at the link-local metadata address', tokenEndpoint(() => 'http://169.254.169.254/latest/api/token'), /refused.*169\.254\.169\.254/],
    ['a token endpoint on a private network address', tokenEndpoint(() => 'https://10.0.0.7/token'), /refused.*10\.0\.0\.7/],
    ['a token endpoint whose host name resolves to a private address', tokenEndpoint(() => 'https://tokens.evil.test/token'), /refused.*tokens\.evil\.test.*10\.9\.8\.7/],
    ['metadata whose issuer is not the server it was fetched from', ((metadata: Record<string, unknown>) => ({ ...metadata, issuer: 'https://issuer.elsewhere.example/' })), /issuer.*https:\/\/issuer\.elsewhere\.example\//],
  ] as const)('refuses %s before the secret is sent', async (_case, tamperMetadata, message) => {
    // Prepare
    double = await startOAuthServerDouble(withClient({ tamperMetadata }));
    const lookup = async (host: string) => (host === 'tokens.evil.test' ? ['10.9.8.7'] : ['203.0.113.10']);

    // Act
    const [status] = await gatewayFor(configFor(clientCredentials()), deployed(lookup)).status();

    // Assess: the server is unavailable with the reason, and no token request went anywhere.
    expect(status).toMatchObject({ status: 'failed', error: expect.stringMatching(message) });
    expect(tokenRequests()).toEqual([]);
    expect(evil.requests).toEqual([]);
  });

  it('refuses an authorization server other than the configured one that the resource metadata names, before asking it anything', async () => {
    // Prepare: a public host (as resolved here); a request would hang, there is no internet.
    double = await startOAuthServerDouble(withClient({ authorizationServers: ['https://auth.elsewhere.example/'] }));
    const lookup = async () => ['203.0.113.10'];

    // Act
    const [status] = await gatewayFor(configFor(clientCredentials()), deployed(lookup)).status();

    // Assess
    expect(status).toMatchObject({ status: 'failed', error: expect.stringMatching(/refused https:\/\/auth\.elsewhere\.example\/.*not the authorization server agent\.yml names/) });
    expect(tokenRequests()).toEqual([]);
  });
});

describe('OAuth discovery of a server without client credentials (dynamic registration), as deployed', () => {
  it('refuses an authorization server over plain http on a loopback address that the resource metadata names', async () => {
    double = await startOAuthServerDouble({ authorizationServers: [`${evil.url}/`] });
    const server = findLoginServer(configFor('{ redirectUrl: "http://localhost:8976/callback" }'), 'notes');

    const started = startLogin(server, { store: createFileTokenStore(join(directory, TOKEN_FILE_NAME)), logger: silentLogger, network: deployed() });

    await expect(started).rejects.toMatchObject({ code: 'mcp_oauth_destination_refused', message: expect.stringMatching(/refused http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server/) });
    expect(evil.requests).toEqual([]);
  });
});

describe('the issuer of an authorization response (RFC 9207)', () => {
  const AUTHORIZATION_CODE = '{ redirectUrl: "http://localhost:8976/callback" }';

  async function startedLogin() {
    const server = findLoginServer(configFor(AUTHORIZATION_CODE), 'notes');
    const dependencies = { store: createFileTokenStore(join(directory, TOKEN_FILE_NAME)), logger: silentLogger };
    const started = await startLogin(server, dependencies);
    if (started.status !== 'authorize') throw new Error('expected an authorization URL');
    const callback = new URL((await fetch(started.authorizationUrl, { redirect: 'manual' })).headers.get('location')!);
    return { server, dependencies, query: callback.searchParams };
  }

  it('accepts a callback whose iss is the authorization server it went to', async () => {
    double = await startOAuthServerDouble({ issParameter: true });
    const { server, dependencies, query } = await startedLogin();

    await completeLogin(server, dependencies, query);

    expect(query.get('iss')).toBe(double.issuer);
    expect(tokenRequests().map((event) => event.grant)).toEqual(['authorization_code']);
  });

  it.each([
    ['another issuer', (query: URLSearchParams) => query.set('iss', 'https://mix-up.example/'), /came from https:\/\/mix-up\.example\/, not from http:\/\/localhost:\d+\//],
    ['no iss although the server sends it', (query: URLSearchParams) => query.delete('iss'), /carries no iss/],
    // RFC 9207 §2.4: compared as strings, never normalized: "http://localhost:1234" is not "http://localhost:1234/".
    ['its issuer without the trailing "/"', (query: URLSearchParams) => query.set('iss', query.get('iss')!.replace(/\/$/, '')), /came from http:\/\/localhost:\d+, not from http:\/\/localhost:\d+\//],
  ])('refuses a callback with %s and exchanges no code', async (_case, tamper, message) => {
    double = await startOAuthServerDouble({ issParameter: true });
    const { server, dependencies, query } = await startedLogin();
    tamper(query);

    await expect(completeLogin(server, dependencies, query)).rejects.toMatchObject({ code: 'mcp_login_issuer_mismatch', message: expect.stringMatching(message) });
    expect(tokenRequests()).toEqual([]);
    expect((await dependencies.store.read('notes'))?.tokens).toBeUndefined();
  });

  it('refuses an iss that does not match even from a server that does not advertise it', async () => {
    double = await startOAuthServerDouble();
    const { server, dependencies, query } = await startedLogin();
    query.set('iss', 'https://mix-up.example/');

    await expect(completeLogin(server, dependencies, query)).rejects.toMatchObject({ code: 'mcp_login_issuer_mismatch' });
    expect(tokenRequests()).toEqual([]);
  });
});
