import { describe, expect, it } from 'vitest';
import { checkIssuer } from '../../lib/adapters/mcp/oauth/issuer-check.ts';

const ISSUER = 'https://login.example.com';

describe('the iss of an authorization response (RFC 9207)', () => {
  it.each([
    ['the issuer the login went to, advertised', { issuer: ISSUER, issRequired: true }, ISSUER],
    ['the issuer the login went to, not advertised', { issuer: ISSUER }, ISSUER],
    ['no iss from a server that does not advertise it', { issuer: ISSUER }, null],
  ])('accepts %s', (_case, expected, iss) => {
    expect(() => checkIssuer('wiki', expected, iss)).not.toThrow();
  });

  it.each([
    ['another issuer, advertised', { issuer: ISSUER, issRequired: true }, 'https://evil.example.com', /came from https:\/\/evil\.example\.com, not from https:\/\/login\.example\.com, where the login went/],
    ['another issuer from a server that does not advertise iss', { issuer: ISSUER }, 'https://evil.example.com', /came from https:\/\/evil\.example\.com/],
    ['the issuer with a "/" appended: compared as strings, never normalized', { issuer: ISSUER, issRequired: true }, `${ISSUER}/`, /came from https:\/\/login\.example\.com\/, not from https:\/\/login\.example\.com,/],
    ['the issuer in another case', { issuer: ISSUER, issRequired: true }, 'https://LOGIN.example.com', /came from https:\/\/LOGIN\.example\.com/],
    ['no iss from a server that advertises it', { issuer: ISSUER, issRequired: true }, null, /carries no iss, although its authorization server \(https:\/\/login\.example\.com\) sends one/],
  ])('refuses %s, naming the mix-up defence', (_case, expected, iss, message) => {
    expect(() => checkIssuer('wiki', expected, iss)).toThrow(expect.objectContaining({ code: 'mcp_login_issuer_mismatch', server: 'wiki', message: expect.stringMatching(message) }));
    expect(() => checkIssuer('wiki', expected, iss)).toThrow(/mix-up attack, so its code was not used\): start again/);
  });
});
