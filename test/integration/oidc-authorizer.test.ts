/**
 * The Lambda TOKEN authorizer of authMode=oidc (functions/oidc-authorizer.ts), invoked with API
 * Gateway's TOKEN authorizer event (test/fixtures/apigateway/token-authorizer.json) against
 * a local OIDC provider; its answer then read by the API entries as API Gateway passes it on
 * (requestContext.authorizer: principalId and the context), so the owner is the token's `sub` and
 * the claims reach the tool policy.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsOf, ownerOf, type ApiGatewayProxyEvent } from '../../lib/http/lambda/api-gateway.ts';
import { groupsOf } from '../../lib/adapters/cedar/cedar-values.ts';
import { startOidcProvider, unsignedToken, type OidcProvider } from '../support/oidc-provider.ts';
import type { AuthorizerResult, TokenAuthorizerEvent } from '../../functions/oidc-authorizer.ts';

const AUDIENCE = 'api://mcp-agent';
const fixture = JSON.parse(readFileSync(new URL('../fixtures/apigateway/token-authorizer.json', import.meta.url), 'utf8')) as TokenAuthorizerEvent;

describe('the OIDC Lambda authorizer', () => {
  let provider: OidcProvider;
  let handler: (event: TokenAuthorizerEvent) => Promise<AuthorizerResult>;

  beforeAll(async () => {
    provider = await startOidcProvider({ audience: AUDIENCE });
    process.env.OIDC_ISSUER = provider.issuer;
    process.env.OIDC_AUDIENCE = AUDIENCE;
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    ({ handler } = await import('../../functions/oidc-authorizer.ts'));
  });
  afterAll(async () => {
    delete process.env.OIDC_ISSUER;
    delete process.env.OIDC_AUDIENCE;
    await provider?.close();
  });

  const invoke = (authorizationToken: string | undefined) => handler({ ...fixture, authorizationToken } as TokenAuthorizerEvent);

  it('allows a valid token: principalId is its sub, the context its claims, the policy every method of the stage', async () => {
    const token = await provider.sign({ sub: 'alice-sub-1', groups: ['support', 'refunds'], tenant: 'acme', email_verified: true });

    const result = await invoke(`Bearer ${token}`);

    expect(result.principalId).toBe('alice-sub-1');
    expect(result.policyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/prod/*/*' }],
    });
    expect(result.context).toMatchObject({ sub: 'alice-sub-1', groups: 'support,refunds', tenant: 'acme', email_verified: true, iss: provider.issuer, aud: AUDIENCE });
    for (const value of Object.values(result.context)) expect(['string', 'number', 'boolean']).toContain(typeof value);
  });

  it('gives the API entries the owner and the claims API Gateway passes on', async () => {
    const result = await invoke(`Bearer ${await provider.sign({ sub: 'bob-sub-2', groups: ['managers'], tenant: 'globex' })}`);
    const event = { httpMethod: 'GET', path: '/conversations/c1', headers: {}, queryStringParameters: null, body: null, isBase64Encoded: false, requestContext: { authorizer: { principalId: result.principalId, ...result.context } } } as ApiGatewayProxyEvent;

    expect(ownerOf(event, { authMode: 'oidc', ownerFrom: 'role-session' })).toBe('bob-sub-2');
    const claims = claimsOf(event)!;
    expect(claims).toMatchObject({ tenant: 'globex', sub: 'bob-sub-2' });
    expect(groupsOf(claims as Parameters<typeof groupsOf>[0])).toEqual(['managers']);
  });

  it('answers Unauthorized (a 401) to no token, a bare or malformed header, a forged, expired, unsigned or foreign token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const refused = [
      undefined,
      'Bearer',
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      `Bearer ${await provider.sign({ sub: 'alice' }, { unpublishedKey: true })}`,
      `Bearer ${await provider.sign({ sub: 'alice' }, { expiresInSeconds: -600 })}`,
      `Bearer ${await provider.sign({ sub: 'alice', aud: 'another-api' })}`,
      `Bearer ${await provider.sign({ sub: 'alice', iss: 'https://login.example.com' })}`,
      `Bearer ${unsignedToken({ sub: 'alice', iss: provider.issuer, aud: AUDIENCE, exp: now + 600 })}`,
    ];
    for (const header of refused) await expect(invoke(header), String(header)).rejects.toThrow(/^Unauthorized$/);
  });
});
