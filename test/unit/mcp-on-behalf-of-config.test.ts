import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { actsOnBehalfOfCallers, attachOAuth, usesOAuth } from '../../lib/adapters/mcp/oauth/attach.ts';
import { findLoginServer } from '../../lib/adapters/mcp/oauth/login.ts';
import { OnBehalfOf } from '../../lib/adapters/mcp/oauth/on-behalf-of.ts';
import { CallerToken } from '../../lib/core/caller-token.ts';
import { callerTokenOf } from '../../lib/http/caller-token-of.ts';
import { configFailure, parseAgentYml } from '../support/agent-yml.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const serverWith = (auth: string, rest = '') => `
mcpServers:
  crm:
    url: https://crm.example.com/mcp
    auth: ${auth}
${rest}`;

describe('the auth block of a remote MCP server', () => {
  it('reads token-exchange with an access token as the subject token by default', () => {
    const [server] = parseAgentYml(serverWith('{ mode: token-exchange, audience: crm-api, scopes: [crm:read] }')).mcpServers;
    expect(server).toMatchObject({
      auth: { mode: 'token-exchange', audience: 'crm-api', scopes: ['crm:read'], subjectTokenType: 'urn:ietf:params:oauth:token-type:access_token', refreshBeforeExpirySeconds: 60 },
    });
  });

  it('reads enterprise-managed with an ID token as the subject token, its identity provider\'s secret from the environment', () => {
    const [server] = parseAgentYml(
      serverWith(
        '{ mode: enterprise-managed, identityProvider: { issuer: "https://idp.example.com", clientId: agent, clientSecret: "${IDP_SECRET}" } }',
        '    oauth: { clientId: agent, clientSecret: "${AS_SECRET}", authorizationServer: "https://login.crm.example.com" }',
      ),
      { IDP_SECRET: 'idp-s3cret', AS_SECRET: 'as-s3cret' },
    ).mcpServers;
    expect(server).toMatchObject({
      auth: { mode: 'enterprise-managed', subjectTokenType: 'urn:ietf:params:oauth:token-type:id_token', identityProvider: { issuer: 'https://idp.example.com', clientId: 'agent', clientSecret: 'idp-s3cret' } },
    });
  });

  it.each([
    ['enterprise-managed without its identity provider', '{ mode: enterprise-managed }', '    oauth: { clientId: agent }', /auth\.identityProvider: enterprise-managed needs the identity provider/],
    ['enterprise-managed without a client at the authorization server', '{ mode: enterprise-managed, identityProvider: { issuer: "https://idp.example.com" } }', '', /oauth\.clientId: enterprise-managed needs the client registered/],
    ['an identity provider with neither issuer nor token endpoint', '{ mode: enterprise-managed, identityProvider: { clientId: agent } }', '    oauth: { clientId: agent }', /identityProvider: name the identity provider's issuer or its tokenEndpoint/],
    ['an identity provider secret written in the file', '{ mode: enterprise-managed, identityProvider: { issuer: "https://idp.example.com", clientId: agent, clientSecret: s3cret } }', '    oauth: { clientId: agent }', /auth\.identityProvider\.clientSecret: write it as \$\{VARIABLE\}/],
    ['an identity provider under token-exchange', '{ mode: token-exchange, identityProvider: { issuer: "https://idp.example.com" } }', '', /identityProvider: an identity provider is only used by mode enterprise-managed/],
    ['exchange settings under the service\'s identity', '{ mode: service, audience: crm-api }', '', /auth\.mode: tokenEndpoint, audience, subjectTokenType and scopes belong to/],
    ['an Authorization header beside the caller\'s token', '{ mode: token-exchange }', '    headers: { Authorization: "Bearer x" }', /headers\.Authorization: an Authorization header cannot be combined with auth\.mode token-exchange/],
    ['legacy SSE', '{ mode: token-exchange }', '    type: sse', /auth\.mode: auth\.mode token-exchange needs Streamable HTTP/],
    ['an unknown mode', '{ mode: impersonate }', '', /auth\.mode: /],
  ])('rejects %s', (_case, auth, rest, message) => {
    expect(configFailure(serverWith(auth, rest))).toMatch(message);
  });
});

describe('the caller token a request carries', () => {
  const request = (headers: Record<string, string>, owner?: string) => ({ method: 'POST', path: '/conversations', headers, body: '{}', ...(owner ? { owner } : {}) });

  it('is the bearer of a caller the deployment identified, with or without the Bearer prefix', () => {
    expect(callerTokenOf(request({ authorization: 'Bearer eyJhbGciOi.payload.signature' }, 'alice')).callerToken?.reveal()).toBe('eyJhbGciOi.payload.signature');
    expect(callerTokenOf(request({ authorization: 'eyJhbGciOi.payload.signature' }, 'alice')).callerToken?.reveal()).toBe('eyJhbGciOi.payload.signature');
  });

  it('is none without an identified caller (AUTH_MODE=none), and never a SigV4 signature (AUTH_MODE=iam)', () => {
    expect(callerTokenOf(request({ authorization: 'Bearer abc.def.ghi' }))).toEqual({});
    expect(callerTokenOf(request({ authorization: 'AWS4-HMAC-SHA256 Credential=AKIA/20260101/eu-west-1/execute-api/aws4_request, SignedHeaders=host, Signature=abc' }, 'arn:aws:iam::1:role/x'))).toEqual({});
    expect(callerTokenOf(request({}, 'alice'))).toEqual({});
  });

  it('shows a placeholder, never the token, when logged, serialized or spread', () => {
    const token = new CallerToken('secret-caller-token');
    const shown = [JSON.stringify({ token }), inspect({ token }), String(token), JSON.stringify({ ...token }), `${token}`];
    for (const text of shown) expect(text).not.toContain('secret-caller-token');
    expect(JSON.stringify({ token })).toBe('{"token":"[caller token]"}');
  });
});

describe('a server called on its callers\' behalf, to the rest of the service', () => {
  const agentYml = serverWith('{ mode: token-exchange }', '    oauth: { clientId: agent, clientSecret: "${S}", authorizationServer: "https://login.example.com" }');

  it('needs no token store (on Lambda: no token secret), and its exchanger is attached', () => {
    const config = parseAgentYml(agentYml, { S: 'x' });
    expect(usesOAuth(config.mcpServers)).toBe(false);
    expect(actsOnBehalfOfCallers(config.mcpServers)).toBe(true);
    expect(attachOAuth(config.mcpServers, { store: undefined as never, logger: recordingLogger(), network: { allowLoopback: false } })[0]).toMatchObject({ onBehalfOf: expect.any(OnBehalfOf) });
  });

  it('has nothing for mcp-login to log in', () => {
    expect(() => findLoginServer(parseAgentYml(agentYml, { S: 'x' }), 'crm')).toThrow('"crm" is called on behalf of each caller (auth.mode token-exchange): there is nothing to log in');
  });
});
