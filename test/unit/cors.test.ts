import { describe, expect, it } from 'vitest';
import { parseAllowedOrigins } from '../../lib/config/environment.ts';
import { corsHeaders, preflightHeaders } from '../../lib/http/cors.ts';

describe('corsHeaders', () => {
  it('allows every origin with *', () => {
    expect(corsHeaders('https://app.example.com', ['*'])).toEqual({ 'access-control-allow-origin': '*' });
  });

  it('echoes an allowed origin and varies on it', () => {
    expect(corsHeaders('https://app.example.com', ['https://admin.example.com', 'https://app.example.com'])).toEqual({
      'access-control-allow-origin': 'https://app.example.com',
      vary: 'Origin',
    });
  });

  it.each([['another origin', 'https://evil.example.com'], ['no origin', undefined]])('adds nothing for %s', (_, origin) => {
    expect(corsHeaders(origin, ['https://app.example.com'])).toEqual({});
  });
});

describe('parseAllowedOrigins', () => {
  it.each([
    [undefined, ['*']],
    ['', ['*']],
    ['*', ['*']],
    ['none', []],
    ['https://a.example.com, https://b.example.com', ['https://a.example.com', 'https://b.example.com']],
  ])('reads %j', (value, expected) => {
    expect(parseAllowedOrigins(value)).toEqual(expected);
  });
});

describe('preflightHeaders', () => {
  const asking = { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, last-event-id' };

  it('lets an allowed origin use the methods and the headers it asks for', () => {
    expect(preflightHeaders(asking, ['https://app.example.com'])).toEqual({
      'access-control-allow-origin': 'https://app.example.com',
      vary: 'Origin',
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': 'content-type, last-event-id',
      'access-control-max-age': '600',
    });
  });

  it('answers another origin with no CORS header, and leaves a request that is no preflight alone', () => {
    expect(preflightHeaders(asking, [])).toEqual({});
    expect(preflightHeaders({ origin: 'https://app.example.com' }, ['*'])).toBeUndefined();
  });
});
