/**
 * Where an OAuth flow may send a request (lib/adapters/mcp/oauth/destinations.ts): every spelling
 * of an internal address is refused, resolved names included, and the configured servers pass.
 */
import { describe, expect, it } from 'vitest';
import { OAuthDestinations, type OAuthNetwork } from '../../lib/adapters/mcp/oauth/destinations.ts';
import { oauthSchema } from '../../lib/config/schema.ts';

const MCP = 'http://10.1.1.1:8080/mcp';
const names: Record<string, string[]> = { 'public.example': ['203.0.113.10'], 'mixed.example': ['203.0.113.10', '10.0.0.1'], 'home.example': ['127.0.0.1'] };
const network = (allowLoopback: boolean): OAuthNetwork => ({ allowLoopback, lookup: async (host) => names[host] ?? [] });
const destinations = (allowLoopback: boolean, settings: Record<string, unknown> = {}) =>
  new OAuthDestinations({ name: 'tickets', url: MCP, settings: oauthSchema.parse(settings) }, network(allowLoopback));

describe('OAuthDestinations.check', () => {
  it.each([
    'https://169.254.169.254/latest/meta-data',
    'https://[fe80::1]/token',
    'https://[::ffff:169.254.169.254]/token',
    'https://[fd00::5]/token',
    'https://0xa9.0xfe.0xa9.0xfe/token',
    'https://2852039166/token',
    'https://192.168.1.20/token',
    'https://100.64.0.1/token',
    'https://mixed.example/token',
    'https://unknown.example/token',
    'http://public.example/token',
    'https://127.0.0.1/token',
    'https://home.example/token',
  ])('refuses %s as deployed', async (url) => {
    await expect(destinations(false).check(new URL(url))).rejects.toMatchObject({ code: 'mcp_oauth_destination_refused' });
  });

  it('allows public https, the configured MCP server (a private address the operator chose), and loopback only in local runs', async () => {
    await expect(destinations(false).check(new URL('https://public.example/token'))).resolves.toBeUndefined();
    await expect(destinations(false).check(new URL('http://10.1.1.1:8080/.well-known/oauth-protected-resource/mcp'))).resolves.toBeUndefined();
    await expect(destinations(true).check(new URL('http://home.example:9000/token'))).resolves.toBeUndefined();
    await expect(destinations(true).check(new URL('http://[::1]:9000/token'))).resolves.toBeUndefined();
    await expect(destinations(true).check(new URL('http://10.0.0.9/token'))).rejects.toMatchObject({ code: 'mcp_oauth_destination_refused' });
  });

  it('with a configured authorization server, goes only there and to the endpoints its checked metadata names', async () => {
    const guarded = destinations(false, { authorizationServer: 'https://login.example/' });
    await expect(guarded.check(new URL('https://login.example/.well-known/oauth-authorization-server'))).resolves.toBeUndefined();
    await expect(guarded.check(new URL('https://public.example/token'))).rejects.toThrow(/not the authorization server agent\.yml names/);

    guarded.accept('https://login.example/', { issuer: 'https://login.example', authorization_endpoint: 'https://login.example/authorize', token_endpoint: 'https://public.example/token', response_types_supported: ['code'] });

    await expect(guarded.check(new URL('https://public.example/token'))).resolves.toBeUndefined();
    expect(() => guarded.accept('https://other.example/', undefined)).toThrow(/names the authorization server https:\/\/other\.example\/, which is not the authorization server agent\.yml names/);
  });
});

describe('OAuthDestinations.accept', () => {
  const metadata = (issuer: string, authorize = `${issuer.replace(/\/$/, '')}/authorize`) => ({ issuer, authorization_endpoint: authorize, token_endpoint: `${issuer.replace(/\/$/, '')}/token`, response_types_supported: ['code'] });

  it('wants the issuer the metadata was fetched for (RFC 8414), one trailing slash aside', () => {
    expect(() => destinations(false).accept('https://public.example/tenant', metadata('https://public.example/tenant/'))).not.toThrow();
    expect(() => destinations(false).accept('https://public.example/tenant', metadata('https://public.example/other'))).toThrow(/names the issuer https:\/\/public\.example\/other: it must name the server it came from/);
  });

  it('takes an issuer of the MCP server’s own origin when discovery fell back to that origin (2025-03-26 servers)', () => {
    expect(() => destinations(false).accept('http://10.1.1.1:8080/', metadata('http://10.1.1.1:8080/oauth'))).not.toThrow();
    expect(() => destinations(false).accept('http://10.1.1.1:8080/', metadata('https://public.example/'))).toThrow(/it must name the server it came from/);
  });

  it('refuses to send a person to an authorization endpoint over plain http, but on loopback in local runs', () => {
    expect(() => destinations(false).accept('https://public.example/', metadata('https://public.example/', 'http://public.example/authorize'))).toThrow(/over https only/);
    expect(() => destinations(true).accept('https://public.example/', metadata('https://public.example/', 'http://localhost:9000/authorize'))).not.toThrow();
  });
});
