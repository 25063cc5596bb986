/**
 * DPoP (RFC 9449) as the conformance scenarios do not pin it: the proof's claims and signature
 * checked with jose against the public key in its header, nonce challenges answered once and never
 * in a loop, `required` and `off`, and the key kept with the tokens it is bound to (across a
 * restart, for a refresh; a new login gets a new one), never logged.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { DpopBinding } from '../../lib/adapters/mcp/oauth/dpop.ts';
import type { DpopMode } from '../../lib/adapters/mcp/oauth/options.ts';
import { dpopProof, generateDpopKey, type DpopKey } from '../../lib/adapters/mcp/oauth/dpop-proof.ts';
import { ServerOAuthProvider } from '../../lib/adapters/mcp/oauth/provider.ts';
import { createMemoryTokenStore } from '../../lib/adapters/mcp/oauth/store.ts';
import { oauthSchema } from '../../lib/config/schema.ts';
import { createJsonLogger } from '../../lib/core/logger.ts';

interface Seen {
  path: string;
  authorization: string | undefined;
  proof: string | undefined;
}

/** A local authorization server (/token) and resource server (/mcp), each answering as `answer` says. */
type Answer = { status: number; headers?: Record<string, string | undefined>; body: unknown };

async function startServer(answer: (request: IncomingMessage, seen: Seen, body: string) => Answer) {
  const seen: Seen[] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const entry: Seen = { path: request.url ?? '', authorization: request.headers.authorization, proof: request.headers.dpop as string | undefined };
    seen.push(entry);
    const { status, headers, body: sent } = answer(request, entry, body);
    const defined = Object.entries(headers ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined);
    response.writeHead(status, { 'content-type': 'application/json', ...Object.fromEntries(defined) }).end(JSON.stringify(sent));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
  return { base, seen };
}
const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const nonceOf = (proof: string | undefined) => (proof ? (decodeJwt(proof).nonce as string | undefined) : undefined);
const thumbprintOf = (proof: string | undefined) => calculateJwkThumbprint(decodeProtectedHeader(proof!).jwk as JWK, 'sha256');
const publicThumbprint = ({ privateJwk: { kty, crv, x, y } }: DpopKey) => calculateJwkThumbprint({ kty, crv, x, y } as JWK, 'sha256');
const tokenRequest = (grantType = 'authorization_code') => ({ method: 'POST', body: new URLSearchParams({ grant_type: grantType }) });
const DPOP_TOKENS = { access_token: 'access-1', token_type: 'DPoP', expires_in: 3600, refresh_token: 'refresh-1' };

function bindingWith(mode: DpopMode, stored: { tokens?: OAuthTokens; dpopKey?: DpopKey } | undefined, metadata: Record<string, unknown> | undefined = { dpop_signing_alg_values_supported: ['ES256'] }) {
  return new DpopBinding('tickets', mode, { authorizationServerMetadata: () => metadata, stored: async () => stored, startsAfresh: false });
}

describe('a DPoP proof', () => {
  it('verifies with jose against the public key in its header, and carries the claims of RFC 9449 §4.2', async () => {
    const key = generateDpopKey();
    const before = Math.floor(Date.now() / 1000);

    const proof = dpopProof(key, { method: 'post', url: 'https://tickets.example.com/mcp?session=1#part', accessToken: 'access-1', nonce: 'nonce-1' });

    const header = decodeProtectedHeader(proof);
    expect(header).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256' });
    expect(header.jwk).not.toHaveProperty('d');
    const { payload } = await jwtVerify(proof, await importJWK(header.jwk as JWK, 'ES256'), { typ: 'dpop+jwt', algorithms: ['ES256'] });
    expect(payload).toMatchObject({
      htm: 'POST',
      htu: 'https://tickets.example.com/mcp',
      ath: createHash('sha256').update('access-1').digest('base64url'),
      nonce: 'nonce-1',
    });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(await thumbprintOf(proof)).toBe(await publicThumbprint(key));
  });

  it('is new for every request (its own jti), and has no ath without a token', () => {
    const key = generateDpopKey();
    const first = decodeJwt(dpopProof(key, { method: 'POST', url: 'https://login.example.com/token' }));
    const second = decodeJwt(dpopProof(key, { method: 'POST', url: 'https://login.example.com/token' }));
    expect(first.jti).toEqual(expect.any(String));
    expect(first.jti).not.toBe(second.jti);
    expect(first).not.toHaveProperty('ath');
  });
});

describe('DPoP on the requests of one server', () => {
  it('answers the authorization server\'s use_dpop_nonce once, then sends its nonce unasked', async () => {
    const { base, seen } = await startServer((_request, request) =>
      nonceOf(request.proof) === 'as-nonce'
        ? { status: 200, body: DPOP_TOKENS }
        : { status: 400, headers: { 'dpop-nonce': 'as-nonce' }, body: { error: 'use_dpop_nonce' } });
    const fetch = bindingWith('auto', undefined).wrap(globalThis.fetch);

    expect((await fetch(`${base}/token`, tokenRequest())).status).toBe(200);
    expect(seen.map((request) => nonceOf(request.proof))).toEqual([undefined, 'as-nonce']);
    await fetch(`${base}/token`, tokenRequest('refresh_token'));
    expect(seen.map((request) => nonceOf(request.proof))).toEqual([undefined, 'as-nonce', 'as-nonce']);
  });

  it('retries a nonce challenge once, not forever, when the server keeps asking for another', async () => {
    let issued = 0;
    const { base, seen } = await startServer((_request, request) =>
      request.path === '/token'
        ? { status: 400, headers: { 'dpop-nonce': `nonce-${++issued}` }, body: { error: 'use_dpop_nonce' } }
        : { status: 401, headers: { 'dpop-nonce': `nonce-${++issued}`, 'www-authenticate': 'DPoP error="use_dpop_nonce", algs="ES256"' }, body: {} });
    const key = generateDpopKey();
    const fetch = bindingWith('auto', { tokens: DPOP_TOKENS, dpopKey: key }).wrap(globalThis.fetch);

    expect((await fetch(`${base}/token`, tokenRequest())).status).toBe(400);
    expect((await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: 'Bearer access-1' }, body: '{}' })).status).toBe(401);

    expect(seen.map((request) => request.path)).toEqual(['/token', '/token', '/mcp', '/mcp']);
  });

  it('presents a DPoP-bound token with the DPoP scheme and a proof of its key that hashes the token, and answers the resource server\'s nonce', async () => {
    const { base, seen } = await startServer((_request, request) =>
      nonceOf(request.proof) === 'rs-nonce'
        ? { status: 200, body: { ok: true } }
        : { status: 401, headers: { 'dpop-nonce': 'rs-nonce', 'www-authenticate': 'DPoP error="use_dpop_nonce"' }, body: {} });
    const key = generateDpopKey();
    const fetch = bindingWith('auto', { tokens: DPOP_TOKENS, dpopKey: key }).wrap(globalThis.fetch);

    const response = await fetch(`${base}/mcp?query=1`, { method: 'POST', headers: { authorization: 'Bearer access-1' }, body: '{}' });

    expect(response.status).toBe(200);
    expect(seen.map((request) => request.authorization)).toEqual(['DPoP access-1', 'DPoP access-1']);
    const proof = seen[1]!.proof!;
    expect(await thumbprintOf(proof)).toBe(await publicThumbprint(key));
    expect(decodeJwt(proof)).toMatchObject({ htm: 'POST', htu: `${base}/mcp`, ath: createHash('sha256').update('access-1').digest('base64url'), nonce: 'rs-nonce' });
  });

  it('keeps the authorization server\'s nonce and the resource server\'s apart, even on one host', async () => {
    const { base, seen } = await startServer((_request, request) => {
      const wanted = request.path === '/token' ? 'as-nonce' : 'rs-nonce';
      if (nonceOf(request.proof) === wanted) return { status: 200, body: request.path === '/token' ? DPOP_TOKENS : {} };
      return request.path === '/token'
        ? { status: 400, headers: { 'dpop-nonce': wanted }, body: { error: 'use_dpop_nonce' } }
        : { status: 401, headers: { 'dpop-nonce': wanted, 'www-authenticate': 'DPoP error="use_dpop_nonce"' }, body: {} };
    });
    const fetch = bindingWith('auto', { tokens: DPOP_TOKENS, dpopKey: generateDpopKey() }).wrap(globalThis.fetch);
    const resourceRequest = { method: 'POST', headers: { authorization: 'Bearer access-1' }, body: '{}' };

    for (const _round of [1, 2]) {
      await fetch(`${base}/token`, tokenRequest('refresh_token'));
      await fetch(`${base}/mcp`, resourceRequest);
    }

    // Challenged once each, the first time; afterwards each gets its own nonce unasked.
    expect(seen.map((request) => `${request.path} ${nonceOf(request.proof)}`)).toEqual([
      '/token undefined', '/token as-nonce', '/mcp undefined', '/mcp rs-nonce', '/token as-nonce', '/mcp rs-nonce',
    ]);
  });

  it('sends a Bearer token as it is, without a proof', async () => {
    const { base, seen } = await startServer(() => ({ status: 200, body: {} }));
    const fetch = bindingWith('auto', { tokens: { access_token: 'access-1', token_type: 'Bearer' } }).wrap(globalThis.fetch);
    await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: 'Bearer access-1' }, body: '{}' });
    expect(seen).toEqual([{ path: '/mcp', authorization: 'Bearer access-1', proof: undefined }]);
  });

  it.each([
    ['auto, when the authorization server does not list ES256', 'auto', { dpop_signing_alg_values_supported: ['RS256'] }],
    ['auto, when it lists nothing', 'auto', {}],
    ['off, even when it offers DPoP', 'off', { dpop_signing_alg_values_supported: ['ES256'] }],
  ] as const)('sends no proof with a token request under %s', async (_case, mode, metadata) => {
    const { base, seen } = await startServer(() => ({ status: 200, body: { access_token: 'access-1', token_type: 'Bearer' } }));
    await bindingWith(mode, undefined, metadata).wrap(globalThis.fetch)(`${base}/token`, tokenRequest());
    expect(seen[0]?.proof).toBeUndefined();
  });

  it('under required, refuses a token the authorization server did not bind, and a server that cannot verify ES256', async () => {
    const { base } = await startServer(() => ({ status: 200, body: { access_token: 'access-1', token_type: 'Bearer' } }));
    await expect(bindingWith('required', undefined, {}).wrap(globalThis.fetch)(`${base}/token`, tokenRequest())).rejects.toMatchObject({
      code: 'mcp_oauth_dpop_unavailable',
      message: expect.stringContaining('issued a Bearer token, not a DPoP-bound one'),
    });
    await expect(bindingWith('required', undefined, { dpop_signing_alg_values_supported: ['RS256'] }).wrap(globalThis.fetch)(`${base}/token`, tokenRequest())).rejects.toMatchObject({
      code: 'mcp_oauth_dpop_unavailable',
      message: expect.stringContaining('accepts DPoP proofs signed with RS256, not ES256'),
    });
  });
});

describe('the key a token is bound to', () => {
  const settings = oauthSchema.parse({ dpop: 'required' });
  const server = (base: string) => ({ name: 'tickets', url: `${base}/mcp`, settings });

  it('is kept with the tokens, proved again after a restart and for the refresh, never logged; a new login gets a new one', async () => {
    const { base, seen } = await startServer(() => ({ status: 200, body: DPOP_TOKENS }));
    const store = createMemoryTokenStore();
    const logged: string[] = [];
    const dependencies = { store, logger: createJsonLogger('debug', (line) => logged.push(line) > 0) };

    // A login: the token request proves a new key, which is stored with the tokens it brought.
    const login = new ServerOAuthProvider(server(base), dependencies, { redirectUrl: 'http://localhost:8976/callback', state: 'state-1' });
    const tokens = (await (await login.dpop.wrap(globalThis.fetch)(`${base}/token`, tokenRequest())).json()) as OAuthTokens;
    await login.saveTokens(tokens);
    const stored = (await store.read('tickets'))!;
    expect(stored.dpopKey?.privateJwk).toHaveProperty('d');
    const bound = await publicThumbprint(stored.dpopKey!);
    expect(await thumbprintOf(seen[0]!.proof)).toBe(bound);

    // Another process: the stored token and its key, for the MCP request and for the refresh.
    const restarted = new ServerOAuthProvider(server(base), dependencies);
    const fetch = restarted.dpop.wrap(globalThis.fetch);
    await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${(await restarted.tokens())!.access_token}` }, body: '{}' });
    await fetch(`${base}/token`, tokenRequest('refresh_token'));
    expect(seen[1]).toMatchObject({ path: '/mcp', authorization: 'DPoP access-1' });
    expect(await thumbprintOf(seen[1]!.proof)).toBe(bound);
    expect(await thumbprintOf(seen[2]!.proof)).toBe(bound);

    const again = new ServerOAuthProvider(server(base), dependencies, { redirectUrl: 'http://localhost:8976/callback', state: 'state-2' });
    await again.dpop.wrap(globalThis.fetch)(`${base}/token`, tokenRequest());
    expect(await thumbprintOf(seen[3]!.proof)).not.toBe(bound);

    expect(logged.join('\n')).toContain('"dpopBound":true');
    expect(logged.join('\n')).not.toContain(stored.dpopKey!.privateJwk.d);
  });

  it('is proved again when the provider renews the token itself, through discovery and the SDK\'s refresh', async () => {
    let base = '';
    const { base: started, seen } = await startServer((request) => {
      if (request.url === '/.well-known/oauth-protected-resource/mcp') return { status: 200, body: { resource: `${base}/mcp`, authorization_servers: [base] } };
      if (request.url === '/.well-known/oauth-authorization-server') {
        return { status: 200, body: { issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`, response_types_supported: ['code'], dpop_signing_alg_values_supported: ['ES256'] } };
      }
      if (request.url === '/token') return { status: 200, body: { access_token: 'access-2', token_type: 'DPoP', expires_in: 3600, refresh_token: 'refresh-2' } };
      return { status: 404, body: {} };
    });
    base = started;
    const dpopKey = generateDpopKey();
    const store = createMemoryTokenStore({
      tickets: {
        serverUrl: `${base}/mcp`,
        client: { client_id: 'agent', issuer: base },
        tokens: { ...DPOP_TOKENS, issuer: base },
        dpopKey,
        // Issued an hour ago: due for renewal.
        receivedAt: Date.now() - 3600_000,
      },
    });
    const provider = new ServerOAuthProvider({ name: 'tickets', url: `${base}/mcp`, settings: oauthSchema.parse({}) }, { store, logger: createJsonLogger('error', () => true), network: { allowLoopback: true } });

    expect((await provider.tokens())?.access_token).toBe('access-2');

    const refresh = seen.find((request) => request.path === '/token')!;
    expect(await thumbprintOf(refresh.proof)).toBe(await publicThumbprint(dpopKey));
    expect(decodeJwt(refresh.proof!)).toMatchObject({ htm: 'POST', htu: `${base}/token` });
    expect(decodeJwt(refresh.proof!)).not.toHaveProperty('ath');
    expect(await store.read('tickets')).toMatchObject({ tokens: { access_token: 'access-2', token_type: 'DPoP' }, dpopKey });
  });
});
