/**
 * The MCP server door's OAuth protected resource metadata (RFC 9728), which the MCP authorization
 * spec asks for: under Cognito the door names the user pool as the authorization server, at the
 * well-known paths, to anyone; a request to /mcp without a caller gets 401 with a WWW-Authenticate
 * header that points at it. Under iam (SigV4, not OAuth) and none there is no such document.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterEach, describe, expect, it } from 'vitest';
import { readDeploymentSettings, type AuthMode } from '../../lib/config/environment.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { configuredFrontDoors } from '../../lib/front-doors/configured.ts';
import { serveFrontDoorsBuffered } from '../../lib/http/dispatch.ts';
import { collectResponse } from '../../lib/http/event-stream.ts';
import type { FrontDoorServices } from '../../lib/http/front-door.ts';
import { fromApiGatewayEvent, type ApiGatewayProxyEvent } from '../../lib/http/lambda/api-gateway.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { agentFixture } from '../support/agent-fixture.ts';

const ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC123';
const HOST = 'abc123.execute-api.eu-west-1.amazonaws.com';

function deployment(authMode: AuthMode) {
  const { agent, config } = agentFixture(null, { yaml: 'mcpServerDoor: true' });
  const doors = configuredFrontDoors({ ...config, authMode, cognitoIssuer: ISSUER });
  const services: FrontDoorServices = { agent, logger: silentLogger, maxBodyBytes: config.http.maxBodyBytes };
  return { doors, services, handle: serveFrontDoorsBuffered(doors, services) };
}

function request(method: string, path: string, extra: Partial<HttpRequest> = {}): HttpRequest {
  return { method, path, basePath: '/prod', headers: { host: HOST, 'x-forwarded-proto': 'https' }, body: undefined, ...extra };
}

describe('the MCP server door’s protected resource metadata', () => {
  it('under cognito names the /mcp URL the client used and the user pool as its authorization server', async () => {
    const { handle } = deployment('cognito');

    const pathAware = await handle(request('GET', '/.well-known/oauth-protected-resource/mcp'));
    const root = await handle(request('GET', '/.well-known/oauth-protected-resource'));

    expect(pathAware.statusCode).toBe(200);
    expect(pathAware.headers['content-type']).toBe('application/json');
    expect(JSON.parse(pathAware.body)).toEqual({ resource: `https://${HOST}/prod/mcp`, authorization_servers: [ISSUER], bearer_methods_supported: ['header'] });
    expect(JSON.parse(root.body)).toEqual(JSON.parse(pathAware.body));
  });

  it('under cognito answers a request to /mcp without a caller with 401 and the metadata’s URL', async () => {
    const { handle } = deployment('cognito');

    const response = await handle(request('POST', '/mcp', { body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', headers: { host: HOST, 'x-forwarded-proto': 'https', 'content-type': 'application/json' } }));

    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`Bearer resource_metadata="https://${HOST}/prod/.well-known/oauth-protected-resource/mcp"`);
    expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'unauthenticated' } } });
  });

  it('under oidc names the OpenID Connect provider as its authorization server', async () => {
    const { agent, config } = agentFixture(null, { yaml: 'mcpServerDoor: true' });
    const doors = configuredFrontDoors({ ...config, authMode: 'oidc', oidcIssuer: 'https://login.example.com/oauth2/default' });
    const handle = serveFrontDoorsBuffered(doors, { agent, logger: silentLogger, maxBodyBytes: config.http.maxBodyBytes });

    const metadata = await handle(request('GET', '/.well-known/oauth-protected-resource/mcp'));

    expect(JSON.parse(metadata.body)).toEqual({ resource: `https://${HOST}/prod/mcp`, authorization_servers: ['https://login.example.com/oauth2/default'], bearer_methods_supported: ['header'] });
  });

  it.each(['none', 'iam'] as const)('under %s serves no metadata: the native 404', async (authMode) => {
    const { handle, doors } = deployment(authMode);

    const response = await handle(request('GET', '/.well-known/oauth-protected-resource/mcp'));

    expect(response.statusCode).toBe(404);
    expect(doors.find((door) => door.name === 'mcp-server')!.matches({ method: 'GET', path: '/.well-known/oauth-protected-resource' })).toBe(false);
  });

  it('under cognito reads no caller for the metadata route, which has no authorizer, and still requires one on /mcp', () => {
    const { doors } = deployment('cognito');
    const identity = { authMode: 'cognito' as const, ownerFrom: 'role-session' as const };
    const anonymous = (path: string): ApiGatewayProxyEvent => ({ httpMethod: 'GET', path, headers: { Host: HOST }, queryStringParameters: null, body: null, isBase64Encoded: false, requestContext: { path: `/prod${path}` } });
    const context = { getRemainingTimeInMillis: () => 60_000 };

    const metadata = fromApiGatewayEvent(anonymous('/.well-known/oauth-protected-resource/mcp'), context, identity, doors);

    expect(metadata).not.toHaveProperty('owner');
    expect(metadata.basePath).toBe('/prod');
    expect(() => fromApiGatewayEvent(anonymous('/mcp'), context, identity, doors)).toThrow(/Cognito user pool token/);
    expect(() => fromApiGatewayEvent(anonymous('/conversations'), context, identity, doors)).toThrow(/Cognito user pool token/);
  });

  it('takes the issuer from the pool id the stack sets, and refuses one that is not a pool id', () => {
    expect(readDeploymentSettings({ AUTH_MODE: 'cognito', COGNITO_USER_POOL_ID: 'eu-west-1_AbC123' }).cognitoIssuer).toBe(ISSUER);
    expect(readDeploymentSettings({ AUTH_MODE: 'cognito' })).not.toHaveProperty('cognitoIssuer');
    expect(() => readDeploymentSettings({ COGNITO_USER_POOL_ID: 'AbC123' })).toThrow(/COGNITO_USER_POOL_ID/);
  });
});

describe('the MCP SDK client’s auth discovery against the door over HTTP', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  /** The door behind a node:http server, as npm start serves it: no caller is identified here. */
  async function serve(authMode: AuthMode): Promise<URL> {
    const { handle } = deployment(authMode);
    server = createServer(async (incoming, outgoing) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const url = new URL(incoming.url ?? '/', 'http://placeholder');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') headers[name] = value;
      const response = await collectResponse(await handle({ method: incoming.method ?? 'GET', path: url.pathname, headers, body: chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined }));
      outgoing.writeHead(response.statusCode, response.headers).end(response.body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return new URL(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/mcp`);
  }

  it('follows the 401’s WWW-Authenticate to the metadata, and finds it at the well-known path without it', async () => {
    const mcpUrl = await serve('cognito');

    const refused = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(refused);
    const pointed = await discoverOAuthProtectedResourceMetadata(mcpUrl, { resourceMetadataUrl: resourceMetadataUrl! });
    const found = await discoverOAuthProtectedResourceMetadata(mcpUrl);

    expect(refused.status).toBe(401);
    expect(resourceMetadataUrl?.href).toBe(new URL('/.well-known/oauth-protected-resource/mcp', mcpUrl).href);
    expect(pointed).toMatchObject({ resource: mcpUrl.href, authorization_servers: [ISSUER], bearer_methods_supported: ['header'] });
    expect(found).toEqual(pointed);
  });

  it('finds no metadata under none', async () => {
    const mcpUrl = await serve('none');

    await expect(discoverOAuthProtectedResourceMetadata(mcpUrl)).rejects.toThrow(/does not implement OAuth 2.0 Protected Resource Metadata/);
  });
});
