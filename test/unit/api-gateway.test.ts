import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { fromApiGatewayEvent, ownerOf } from '../../functions/api-gateway.ts';
import { InputError } from '../../lib/core/errors.ts';
import { INPUT_STATUS } from '../../lib/http/status.ts';

const event = (name: string): APIGatewayProxyEvent => JSON.parse(readFileSync(new URL(`../fixtures/apigateway/${name}.json`, import.meta.url), 'utf8'));
const context = { getRemainingTimeInMillis: () => 120_000 };

describe('fromApiGatewayEvent', () => {
  it('turns a REST proxy event into the contract request, with the deadline from the remaining time', () => {
    const before = Date.now();
    const request = fromApiGatewayEvent(event('rest-proxy-iam'), context, 'none');
    expect(request).toMatchObject({
      method: 'POST',
      path: '/conversations/order-support-1234/messages',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{"message":"取消订单 ORD20250514118567","requestId":"req-42"}',
    });
    expect(request.owner).toBeUndefined();
    expect(request.deadlineAt! - before).toBeGreaterThanOrEqual(120_000);
    expect(request.deadlineAt! - before).toBeLessThan(121_000);
  });

  it('decodes a base64-encoded body', () => {
    const encoded = { ...event('rest-proxy-iam'), body: Buffer.from('{"message":"hi"}').toString('base64'), isBase64Encoded: true };
    expect(fromApiGatewayEvent(encoded, context, 'none').body).toBe('{"message":"hi"}');
  });
});

describe('ownerOf', () => {
  it('scopes conversations to the IAM principal under iam auth', () => {
    expect(ownerOf(event('rest-proxy-iam'), 'iam')).toBe('arn:aws:sts::123456789012:assumed-role/SupportBot/support-bot');
  });

  it('scopes conversations to the user pool subject under cognito auth', () => {
    expect(ownerOf(event('rest-proxy-cognito'), 'cognito')).toBe('7d8f5c1e-1b2a-4c3d-9e8f-0a1b2c3d4e5f');
  });

  it.each([
    ['iam', 'rest-proxy-cognito'],
    ['cognito', 'rest-proxy-iam'],
  ] as const)('answers 401 under %s auth when the event carries no such identity', (mode, name) => {
    expect(() => ownerOf(event(name), mode)).toThrow(InputError);
    try {
      ownerOf(event(name), mode);
    } catch (error) {
      expect(INPUT_STATUS[(error as InputError).code]).toBe(401);
    }
  });

  it('has no owner without auth', () => {
    expect(ownerOf(event('rest-proxy-cognito'), 'none')).toBeUndefined();
  });
});
