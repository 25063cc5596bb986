/**
 * A test double of enterprise-managed authorization (SEP-990): an enterprise identity provider
 * that exchanges a user's ID token (RFC 8693) for an Identity Assertion JWT Authorization Grant
 * (ID-JAG, signed ES256, `typ: oauth-id-jag+jwt`), an MCP server's authorization server that takes
 * the ID-JAG with the jwt-bearer grant (RFC 7523) from its registered client (Basic credentials),
 * checking its signature, audience, resource and client, and issues the access token; and the MCP
 * server behind the SDK's bearer check (mountNotesServer). Every check failing answers an OAuth error.
 */
import { createPublicKey, generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { basicClient, close, listen, mountNotesServer, port, type IssuedGrant, type TokenExchangeDouble } from './token-exchange-server.ts';

export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface EnterpriseDoubleOptions {
  /** The users' ID tokens from the identity provider, and whom each names. */
  idTokens: Record<string, string>;
  identityProviderClient: { id: string; secret: string };
  authorizationServerClient: { id: string; secret: string };
  notes: Record<string, string[]>;
}

export interface EnterpriseDouble {
  url: string;
  identityProviderIssuer: string;
  authorizationServerIssuer: string;
  /** What each token endpoint was asked, and how it answered. */
  requests: Array<{ at: 'identity-provider' | 'authorization-server'; body: Record<string, string>; status: number }>;
  mcpRequests: TokenExchangeDouble['mcpRequests'];
  /** Every grant and token issued, for tests to check none reached a log or a stored turn. */
  issued: string[];
  close(): Promise<void>;
}

export async function startEnterpriseDouble(options: EnterpriseDoubleOptions): Promise<EnterpriseDouble> {
  const requests: EnterpriseDouble['requests'] = [];
  const mcpRequests: EnterpriseDouble['mcpRequests'] = [];
  const issued: string[] = [];
  const tokens = new Map<string, IssuedGrant>();
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  const identityProvider = express().use(express.urlencoded({ extended: false }));
  const authorizationServer = express().use(express.urlencoded({ extended: false }));
  const resource = express();
  const [idpListener, asListener, resourceListener] = await Promise.all([listen(identityProvider), listen(authorizationServer), listen(resource)]);
  const identityProviderIssuer = `http://localhost:${port(idpListener)}`;
  const authorizationServerIssuer = `http://localhost:${port(asListener)}`;
  const url = `http://localhost:${port(resourceListener)}/mcp`;
  const answer = (at: EnterpriseDouble['requests'][number]['at'], request: Request, response: Response, status: number, body: Record<string, unknown>) => {
    requests.push({ at, body: request.body as Record<string, string>, status });
    response.status(status).json(body);
  };

  identityProvider.get('/.well-known/oauth-authorization-server', (_request, response) => {
    response.json({ issuer: identityProviderIssuer, token_endpoint: `${identityProviderIssuer}/token`, authorization_endpoint: `${identityProviderIssuer}/authorize`, response_types_supported: ['code'], grant_types_supported: [TOKEN_EXCHANGE] });
  });
  identityProvider.post('/token', (request: Request, response: Response) => {
    const body = request.body as Record<string, string>;
    const refuse = (status: number, error: string, description: string) => answer('identity-provider', request, response, status, { error, error_description: description });
    const client = basicClient(request.headers.authorization);
    if (client?.id !== options.identityProviderClient.id || client.secret !== options.identityProviderClient.secret) return refuse(401, 'invalid_client', 'client authentication failed');
    if (body.grant_type !== TOKEN_EXCHANGE || body.subject_token_type !== ID_TOKEN_TYPE || body.requested_token_type !== ID_JAG_TYPE) return refuse(400, 'invalid_request', 'expected an ID token exchanged for an ID-JAG');
    if (body.audience !== authorizationServerIssuer || body.resource !== url) return refuse(400, 'invalid_target', 'unknown audience or resource');
    const subject = options.idTokens[body.subject_token ?? ''];
    if (subject === undefined) return refuse(400, 'invalid_grant', 'not an ID token of this identity provider');
    const grant = signJwt({ alg: 'ES256', typ: 'oauth-id-jag+jwt' }, { iss: identityProviderIssuer, sub: subject, aud: body.audience, resource: body.resource, client_id: options.authorizationServerClient.id, jti: randomUUID(), iat: now(), exp: now() + 300 }, privateKey);
    issued.push(grant);
    answer('identity-provider', request, response, 200, { access_token: grant, issued_token_type: ID_JAG_TYPE, token_type: 'N_A', expires_in: 300 });
  });

  authorizationServer.get('/.well-known/oauth-authorization-server', (_request, response) => {
    response.json({ issuer: authorizationServerIssuer, token_endpoint: `${authorizationServerIssuer}/token`, authorization_endpoint: `${authorizationServerIssuer}/authorize`, response_types_supported: ['code'], grant_types_supported: [JWT_BEARER], token_endpoint_auth_methods_supported: ['client_secret_basic'] });
  });
  authorizationServer.post('/token', (request: Request, response: Response) => {
    const body = request.body as Record<string, string>;
    const refuse = (status: number, error: string, description: string) => answer('authorization-server', request, response, status, { error, error_description: description });
    const client = basicClient(request.headers.authorization);
    if (client?.id !== options.authorizationServerClient.id || client.secret !== options.authorizationServerClient.secret) return refuse(401, 'invalid_client', 'client authentication failed');
    if (body.grant_type !== JWT_BEARER || !body.assertion) return refuse(400, 'unsupported_grant_type', 'expected the jwt-bearer grant with an assertion');
    const claims = verifiedJwt(body.assertion, publicKey, 'oauth-id-jag+jwt');
    if (!claims || claims.iss !== identityProviderIssuer || claims.aud !== authorizationServerIssuer || claims.resource !== url || claims.client_id !== client.id || Number(claims.exp) < now()) {
      return refuse(400, 'invalid_grant', 'the ID-JAG is not valid here');
    }
    const token = `enterprise-${randomUUID()}`;
    tokens.set(token, { subject: String(claims.sub), audience: url, expiresAt: Date.now() + 3_600_000 });
    issued.push(token);
    answer('authorization-server', request, response, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
  });

  mountNotesServer(resource, url, tokens, mcpRequests, options.notes, authorizationServerIssuer);

  return {
    url,
    identityProviderIssuer,
    authorizationServerIssuer,
    requests,
    mcpRequests,
    issued,
    async close() {
      await Promise.all([close(idpListener), close(asListener), close(resourceListener)]);
    },
  };
}

const now = () => Math.floor(Date.now() / 1000);
const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function signJwt(header: object, claims: object, key: Parameters<typeof sign>[2]): string {
  const input = `${encode(header)}.${encode(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: key as never, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

function verifiedJwt(jwt: string, key: ReturnType<typeof createPublicKey>, typ: string): Record<string, unknown> | undefined {
  const [header, claims, signature] = jwt.split('.');
  if (!header || !claims || !signature) return undefined;
  if ((JSON.parse(Buffer.from(header, 'base64url').toString()) as { typ?: string }).typ !== typ) return undefined;
  const valid = verify('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  return valid ? (JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>) : undefined;
}
