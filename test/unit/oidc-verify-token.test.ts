/**
 * The OIDC token verifier of AUTH_MODE=oidc (lib/adapters/oidc/verify-token.ts) against a local
 * provider serving a real discovery document and JWKS (test/support/oidc-provider.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcTokenVerifier, TokenRejected, type VerifyToken } from '../../lib/adapters/oidc/verify-token.ts';
import { hs256Token, startOidcProvider, unsignedToken, type OidcProvider } from '../support/oidc-provider.ts';

const AUDIENCE = 'mcp-agent-client';

describe('the OIDC token verifier', () => {
  let provider: OidcProvider;
  let verify: VerifyToken;

  beforeAll(async () => {
    provider = await startOidcProvider({ audience: AUDIENCE });
    verify = oidcTokenVerifier({ issuer: provider.issuer, audience: AUDIENCE }, { refetchCooldownMs: 0 });
  });
  afterAll(() => provider?.close());

  const rejection = async (token: string, check: VerifyToken = verify) => {
    const error = await check(token).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(TokenRejected);
    return (error as Error).message;
  };

  it('accepts a token of the issuer for the audience: the subject and every claim', async () => {
    const token = await provider.sign({ sub: 'alice', groups: ['support'], tenant: 'acme' });

    const caller = await verify(token);

    expect(caller.subject).toBe('alice');
    expect(caller.claims).toMatchObject({ sub: 'alice', groups: ['support'], tenant: 'acme', iss: provider.issuer, aud: AUDIENCE });
  });

  it('keeps the keys across tokens: the JWKS is fetched once for many', async () => {
    const before = provider.jwksFetches();
    for (const sub of ['a', 'b', 'c']) await verify(await provider.sign({ sub }));
    expect(provider.jwksFetches()).toBe(before);
  });

  it('refuses a token of another issuer', async () => {
    expect(await rejection(await provider.sign({ sub: 'alice', iss: 'https://evil.example.com' }))).toContain('"iss"');
  });

  it('refuses a token for another audience', async () => {
    expect(await rejection(await provider.sign({ sub: 'alice', aud: 'another-client' }))).toContain('"aud"');
  });

  it('refuses an expired token, and takes one that expired within the clock leeway', async () => {
    expect(await rejection(await provider.sign({ sub: 'alice' }, { expiresInSeconds: -600 }))).toBe('the token has expired');
    await expect(verify(await provider.sign({ sub: 'alice' }, { expiresInSeconds: -5 }))).resolves.toMatchObject({ subject: 'alice' });
  });

  it('refuses a token not valid yet (nbf), and one without sub', async () => {
    expect(await rejection(await provider.sign({ sub: 'alice', nbf: Math.floor(Date.now() / 1000) + 600 }))).toContain('"nbf"');
    expect(await rejection(await provider.sign({ sub: '' }))).toContain('sub');
  });

  it('refuses a token signed by a key the issuer does not publish', async () => {
    expect(await rejection(await provider.sign({ sub: 'alice' }, { unpublishedKey: true }))).toBe('no key of the issuer matches the token');
  });

  it('fetches the JWKS again for an unknown key id, so a rotated key is found; the old key then no longer verifies', async () => {
    const oldToken = await provider.sign({ sub: 'alice' });
    await verify(oldToken);
    await provider.rotateKey();
    const before = provider.jwksFetches();

    const caller = await verify(await provider.sign({ sub: 'bob' }));

    expect(caller.subject).toBe('bob');
    expect(provider.jwksFetches()).toBe(before + 1);
    expect(await rejection(oldToken)).toBe('no key of the issuer matches the token');
  });

  it('does not fetch the JWKS again within the cool-down, however many unknown key ids arrive', async () => {
    const cautious = oidcTokenVerifier({ issuer: provider.issuer, audience: AUDIENCE });
    await cautious(await provider.sign({ sub: 'alice' }));
    const before = provider.jwksFetches();

    for (let i = 0; i < 3; i += 1) await rejection(await provider.sign({ sub: 'alice' }, { unpublishedKey: true }), cautious);

    expect(provider.jwksFetches()).toBe(before);
  });

  it('refuses alg none and HS256 (a shared secret would prove nothing: the keys are public)', async () => {
    const claims = { sub: 'alice', iss: provider.issuer, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 };
    expect(await rejection(unsignedToken(claims))).toMatch(/not allowed|not a valid signed JWT/);
    expect(await rejection(await hs256Token(claims, 'public-jwks-as-secret'))).toBe('the token is signed with an algorithm that is not allowed');
  });

  it('refuses what is not a JWT, and an empty token', async () => {
    expect(await rejection('not-a-jwt')).toContain('not a valid signed JWT');
    expect(await rejection('')).toBe('no bearer token');
  });

  it('fails (not a 401) when the discovery document names another issuer, and asks again next time', async () => {
    const misnamed = oidcTokenVerifier({ issuer: `${provider.issuer}/`, audience: AUDIENCE });
    const token = await provider.sign({ sub: 'alice' });
    const error = await misnamed(token).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(TokenRejected);
    expect((error as Error).message).toContain('names the issuer');
  });
});
