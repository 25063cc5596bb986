import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { configuredFrontDoors } from '../../lib/front-doors/configured.ts';
import { answer, fromApiGatewayEvent, ownerOf } from '../../lib/http/lambda/api-gateway.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { InputError } from '../../lib/core/errors.ts';
import { ANSWER_MARGIN_MS } from '../../lib/core/deadline.ts';
import { INPUT_STATUS } from '../../lib/http/status.ts';
import { lambdaContext } from '../support/lambda-context.ts';

const event = (name: string): APIGatewayProxyEvent => JSON.parse(readFileSync(new URL(`../fixtures/apigateway/${name}.json`, import.meta.url), 'utf8'));
const context = lambdaContext({ remainingMs: 120_000 });

describe('fromApiGatewayEvent', () => {
  it('turns a REST proxy event into the contract request, with the deadline from the remaining time', () => {
    const before = Date.now();
    const request = fromApiGatewayEvent(event('rest-proxy-iam'), context, { authMode: 'none', ownerFrom: 'role-session' });
    expect(request).toMatchObject({
      method: 'POST',
      path: '/conversations/order-support-1234/messages',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{"message":"取消订单 ORD20250514118567","requestId":"req-42"}',
    });
    expect(request.owner).toBeUndefined();
    // Less the time kept to answer before the invocation ends.
    expect(request.deadlineAt! - before).toBeGreaterThanOrEqual(120_000 - ANSWER_MARGIN_MS);
    expect(request.deadlineAt! - before).toBeLessThan(121_000 - ANSWER_MARGIN_MS);
  });

  it('passes the query string on, and none when the event has none', () => {
    const paged = { ...event('rest-proxy-cognito'), queryStringParameters: { limit: '10', nextToken: 'AAAAAu8' } };
    expect(fromApiGatewayEvent(paged, context, { authMode: 'cognito', ownerFrom: 'role-session' }).query).toEqual({ limit: '10', nextToken: 'AAAAAu8' });
    expect(fromApiGatewayEvent(event('rest-proxy-cognito'), context, { authMode: 'cognito', ownerFrom: 'role-session' })).not.toHaveProperty('query');
  });

  it('decodes a base64-encoded body', () => {
    const encoded = { ...event('rest-proxy-iam'), body: Buffer.from('{"message":"hi"}').toString('base64'), isBase64Encoded: true };
    expect(fromApiGatewayEvent(encoded, context, { authMode: 'none', ownerFrom: 'role-session' }).body).toBe('{"message":"hi"}');
  });
});

type Mode = Parameters<typeof ownerOf>[1];
const iam = (ownerFrom: 'principal' | 'role-session' = 'role-session'): Mode => ({ authMode: 'iam', ownerFrom });
const cognito: Mode = { authMode: 'cognito', ownerFrom: 'role-session' };
const oidc: Mode = { authMode: 'oidc', ownerFrom: 'role-session' };
const none: Mode = { authMode: 'none', ownerFrom: 'role-session' };

/** The fixture with another caller's values in requestContext.identity. */
function withIdentity(name: string, identity: Partial<APIGatewayProxyEvent['requestContext']['identity']>): APIGatewayProxyEvent {
  const base = event(name);
  return { ...base, requestContext: { ...base.requestContext, identity: { ...base.requestContext.identity, ...identity } } };
}

describe('ownerOf under iam auth', () => {
  it.each(['principal', 'role-session'] as const)('scopes an IAM user to its user ARN (ownerFrom %s)', (ownerFrom) => {
    expect(ownerOf(event('rest-proxy-iam-user'), iam(ownerFrom))).toBe('arn:aws:iam::123456789012:user/ada');
  });

  it('scopes an assumed role to the role and its session name by default (ownerFrom role-session)', () => {
    expect(ownerOf(event('rest-proxy-iam'), iam())).toBe('arn:aws:sts::123456789012:assumed-role/SupportBot/support-bot');
  });

  it('keeps two sessions of one role apart under role-session, and together under principal', () => {
    const first = event('rest-proxy-iam');
    const second = withIdentity('rest-proxy-iam', {
      userArn: 'arn:aws:sts::123456789012:assumed-role/SupportBot/billing-bot',
      caller: 'AROAEXAMPLEROLEID:billing-bot',
      user: 'AROAEXAMPLEROLEID:billing-bot',
    });
    expect(ownerOf(first, iam('role-session'))).not.toBe(ownerOf(second, iam('role-session')));
    expect(ownerOf(first, iam('principal'))).toBe('arn:aws:sts::123456789012:assumed-role/SupportBot');
    expect(ownerOf(second, iam('principal'))).toBe('arn:aws:sts::123456789012:assumed-role/SupportBot');
  });

  it.each(['principal', 'role-session'] as const)('scopes each identity-pool user to its Cognito identity, not the shared role session (ownerFrom %s)', (ownerFrom) => {
    const ada = event('rest-proxy-identity-pool-authenticated');
    const bob = withIdentity('rest-proxy-identity-pool-authenticated', { cognitoIdentityId: 'eu-west-1:4f1a2b3c-9d8e-4f7a-8b6c-5d4e3f2a1b0c' });
    // Both arrive as the same role session: arn:aws:sts::…:assumed-role/Cognito_AgentAuth_Role/CognitoIdentityCredentials.
    expect(ada.requestContext.identity.userArn).toBe(bob.requestContext.identity.userArn);
    expect(ownerOf(ada, iam(ownerFrom))).toBe('eu-west-1:7c3e9a1b-2f4d-4e6a-8b0c-1d2e3f4a5b6c');
    expect(ownerOf(bob, iam(ownerFrom))).toBe('eu-west-1:4f1a2b3c-9d8e-4f7a-8b6c-5d4e3f2a1b0c');
  });

  it('scopes an unauthenticated (guest) identity-pool caller to its own Cognito identity', () => {
    const guest = event('rest-proxy-identity-pool-unauthenticated');
    const otherGuest = withIdentity('rest-proxy-identity-pool-unauthenticated', { cognitoIdentityId: 'eu-west-1:1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e' });
    expect(ownerOf(guest, iam())).toBe('eu-west-1:0a9b8c7d-6e5f-4a3b-9c1d-0e2f4a6b8c0d');
    expect(ownerOf(otherGuest, iam())).not.toBe(ownerOf(guest, iam()));
  });

  it('refuses an identity-pool session without its identity id rather than sharing one owner among the pool', () => {
    const anonymous = withIdentity('rest-proxy-identity-pool-authenticated', { cognitoIdentityId: null });
    expect(() => ownerOf(anonymous, iam())).toThrow(expect.objectContaining({ code: 'unauthenticated' }));
  });
});

describe('ownerOf under cognito auth and without auth', () => {
  it('scopes conversations to the user pool subject under cognito auth', () => {
    expect(ownerOf(event('rest-proxy-cognito'), cognito)).toBe('7d8f5c1e-1b2a-4c3d-9e8f-0a1b2c3d4e5f');
  });

  it.each([
    [iam(), 'rest-proxy-cognito'],
    [cognito, 'rest-proxy-iam'],
    [cognito, 'rest-proxy-identity-pool-authenticated'],
    // Under oidc only the OIDC authorizer's principalId names the caller, never a Cognito claim.
    [oidc, 'rest-proxy-cognito'],
    [oidc, 'rest-proxy-iam'],
  ] as const)('answers 401 under %o when the event carries no such identity (%s)', (mode, name) => {
    expect(() => ownerOf(event(name), mode)).toThrow(InputError);
    try {
      ownerOf(event(name), mode);
    } catch (error) {
      expect(INPUT_STATUS[(error as InputError).code]).toBe(401);
    }
  });

  it('has no owner without auth', () => {
    expect(ownerOf(event('rest-proxy-cognito'), none)).toBeUndefined();
    expect(ownerOf(event('rest-proxy-identity-pool-authenticated'), none)).toBeUndefined();
  });
});

describe('answer', () => {
  const frontDoors = configuredFrontDoors({ openaiApi: { modelId: 'mcp-agent' } });
  const unidentified = () => Promise.reject(new InputError('unauthenticated', 'This API requires SigV4-signed (IAM) requests.'));

  it('answers a caller it cannot identify in the native error shape, and under /v1 in OpenAI’s', async () => {
    const native = await answer({ ...event('rest-proxy-iam'), path: '/conversations' }, unidentified, { logger: silentLogger, allowedOrigins: ['*'], frontDoors });
    const openAI = await answer({ ...event('rest-proxy-iam'), path: '/v1/chat/completions' }, unidentified, { logger: silentLogger, allowedOrigins: ['*'], frontDoors });
    expect(native.statusCode).toBe(401);
    expect(JSON.parse((native as { body: string }).body)).toEqual({ error: { code: 'unauthenticated', message: 'This API requires SigV4-signed (IAM) requests.' } });
    expect(openAI.statusCode).toBe(401);
    expect(JSON.parse((openAI as { body: string }).body)).toEqual({ error: { code: 'unauthenticated', message: 'This API requires SigV4-signed (IAM) requests.', type: 'authentication_error', param: null } });
    expect(openAI.headers['access-control-allow-origin']).toBe('*');
  });
});
