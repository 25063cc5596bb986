/**
 * AUTH_MODE=oidc through `npm start`: callers are identified by their OpenID Connect provider's
 * token, verified by the server with the verifier the deployed authorizer uses, against a local
 * provider serving a real discovery document and JWKS (test/support/oidc-provider.ts). Each user
 * owns their own conversations, and an MCP server of `auth.mode: token-exchange` receives that
 * user's provider token as the RFC 8693 subject_token and sees that user
 * (test/support/token-exchange-server.ts). The model is scripted to call my_notes when asked for
 * notes and to repeat what the tool answered.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serversPerTest, startConfiguredLocalServer, type ConfiguredLocalServer } from '../support/configured-local-server.ts';
import { startOidcProvider, type OidcProvider } from '../support/oidc-provider.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ChatRequestBody, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { completionBodies, toolNames } from '../support/wire-requests.ts';
import { ACCESS_TOKEN_TYPE, startTokenExchangeDouble, TOKEN_EXCHANGE_GRANT, type TokenExchangeDouble } from '../support/token-exchange-server.ts';

const AUDIENCE = 'mcp-agent-web';
const CLIENT_SECRET = 'agent-client-secret-oidc-4e5f';

describe('AUTH_MODE=oidc through npm start', () => {
  let provider: OidcProvider;
  let identity: TokenExchangeDouble;
  let model: ScriptedOpenAIServer;
  let local: ConfiguredLocalServer;
  let aliceToken: string;
  let bobToken: string;

  beforeAll(async () => {
    provider = await startOidcProvider({ audience: AUDIENCE });
    aliceToken = await provider.sign({ sub: 'alice-sub-1', email: 'alice@example.com', groups: ['support'] });
    bobToken = await provider.sign({ sub: 'bob-sub-2', email: 'bob@example.com' });
    identity = await startTokenExchangeDouble({
      users: { [aliceToken]: 'alice', [bobToken]: 'bob' },
      clientId: 'mcp-agent',
      clientSecret: CLIENT_SECRET,
      notes: { alice: ['buy oat milk'], bob: ['call the dentist'] },
    });
    model = await startScriptedOpenAIServer((body: ChatRequestBody) => {
      const last = body.messages.at(-1)!;
      if (last['role'] === 'tool') return textReply(`The tool said: ${String(last['content'])}`);
      if (String(last['content']).includes('notes')) return toolCallsReply([{ id: 'call_notes', name: 'my_notes', arguments: {} }]);
      return textReply('Hello.');
    });
    const agentYml = [
      'tools: { reconnectMaxDelaySeconds: 1 }',
      'mcpServers:',
      '  notes:',
      '    type: http',
      `    url: ${identity.url}`,
      '    auth: { mode: token-exchange }',
      `    oauth: { clientId: mcp-agent, clientSecret: "\${NOTES_CLIENT_SECRET}", authorizationServer: ${identity.issuer} }`,
      '',
    ].join('\n');
    local = await startConfiguredLocalServer(agentYml, model, { AUTH_MODE: 'oidc', OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE, NOTES_CLIENT_SECRET: CLIENT_SECRET });
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    await model?.close();
    await identity?.close();
    await provider?.close();
  });

  const request = async (path: string, token: string | undefined, body?: object) => {
    const response = await fetch(`${local.server.url}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, challenge: response.headers.get('www-authenticate'), body: (await response.json()) as Record<string, unknown> & { error?: { code: string; message: string } } };
  };

  it('answers 401 unauthenticated with a Bearer challenge to a request without a token', async () => {
    const answer = await request('/conversations', undefined, { message: 'Hi' });

    expect(answer.status).toBe(401);
    expect(answer.body.error?.code).toBe('unauthenticated');
    expect(answer.challenge).toBe('Bearer');
  });

  it('answers 401 invalid_token to a forged, an expired and another audience\'s token, saying why', async () => {
    const forged = await request('/conversations', await provider.sign({ sub: 'alice-sub-1' }, { unpublishedKey: true }), { message: 'Hi' });
    const expired = await request('/conversations', await provider.sign({ sub: 'alice-sub-1' }, { expiresInSeconds: -600 }), { message: 'Hi' });
    const elsewhere = await request('/conversations', await provider.sign({ sub: 'alice-sub-1', aud: 'another-app' }), { message: 'Hi' });

    for (const answer of [forged, expired, elsewhere]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error?.code).toBe('invalid_token');
      expect(answer.challenge).toBe('Bearer error="invalid_token"');
    }
    expect(forged.body.error?.message).toContain('no key of the issuer matches the token');
    expect(expired.body.error?.message).toContain('the token has expired');
    expect(elsewhere.body.error?.message).toContain('"aud"');
  });

  it('gives each user their own conversations: another user\'s id names nothing of theirs', async () => {
    const alice = await request('/conversations', aliceToken, { message: 'Hi from Alice' });
    const bob = await request('/conversations', bobToken, { message: 'Hi from Bob' });
    expect([alice.status, bob.status]).toEqual([201, 201]);
    const aliceId = String(alice.body.conversationId);

    const bobReadsAlices = await request(`/conversations/${aliceId}`, bobToken);
    const aliceReadsBobs = await request(`/conversations/${String(bob.body.conversationId)}`, aliceToken);
    // Bob writing to Alice's id writes to a conversation of his own under that id (the owner is part of the key).
    const bobWritesToAlicesId = await request(`/conversations/${aliceId}/messages`, bobToken, { message: 'Let me in' });
    const aliceReadsHers = await request(`/conversations/${aliceId}`, aliceToken);

    expect(bobReadsAlices.status).toBe(404);
    expect(aliceReadsBobs.status).toBe(404);
    expect(bobWritesToAlicesId.status).not.toBe(401);
    expect(aliceReadsHers.status).toBe(200);
    const stored = JSON.stringify(aliceReadsHers.body);
    expect(stored).toContain('Hi from Alice');
    expect(stored).not.toContain('Let me in');
    expect(stored).not.toContain('Hi from Bob');
  });

  it('exchanges each user\'s own OIDC token (RFC 8693 subject_token) for the MCP server, which sees that user', async () => {
    const alice = await request('/conversations', aliceToken, { message: 'What are my notes?' });
    const bob = await request('/conversations', bobToken, { message: 'What are my notes?' });

    expect(alice.body.reply, local.server.output()).toBe('The tool said: notes of alice: buy oat milk');
    expect(bob.body.reply).toBe('The tool said: notes of bob: call the dentist');
    const exchanges = identity.exchanges.filter((exchange) => exchange.status === 200);
    expect(exchanges.map((exchange) => exchange.body)).toEqual([
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: aliceToken, subject_token_type: ACCESS_TOKEN_TYPE, requested_token_type: ACCESS_TOKEN_TYPE, resource: identity.url },
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: bobToken, subject_token_type: ACCESS_TOKEN_TYPE, requested_token_type: ACCESS_TOKEN_TYPE, resource: identity.url },
    ]);
    expect(identity.mcpRequests.filter((entry) => entry.method === 'tools/call').map((entry) => entry.subject)).toEqual(['alice', 'bob']);
  });

  it('keeps the users\' tokens out of the log', () => {
    for (const secret of [aliceToken, bobToken, CLIENT_SECRET, ...identity.issued]) expect(local.server.output()).not.toContain(secret);
  });
});

describe('AUTH_MODE=oidc claims in the tool policy (toolPolicy.cedar) through npm start', () => {
  const POLICIES = fileURLToPath(new URL('../fixtures/shop-policies.cedar', import.meta.url));
  const SHOP_SERVER = fileURLToPath(new URL('../fixtures/shop-server.ts', import.meta.url));
  const servers = serversPerTest();
  let provider: OidcProvider;
  beforeAll(async () => {
    provider = await startOidcProvider({ audience: AUDIENCE });
  });
  afterAll(() => provider?.close());

  it('decides by the groups claim of the provider\'s token: support refunds 40 EUR, a caller without the group is not even offered refund', async () => {
    const refund = toolCallsReply([{ id: 'small', name: 'refund', arguments: { orderNo: 'F1', amount: 40 } }]);
    const model = await servers.model([refund, textReply('Done.'), refund, textReply('Not allowed.')]);
    const agentYml = `toolPolicy: { cedar: ${JSON.stringify(POLICIES)} }\nmcpServers:\n  shop: { command: node, args: [${JSON.stringify(SHOP_SERVER)}] }\nmodel: { maxRetries: 0 }\n`;
    const local = await servers.local(agentYml, model, { AUTH_MODE: 'oidc', OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE });
    const ask = async (token: string) => {
      const response = await fetch(`${local.server.url}/conversations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ message: 'Refund F1 (40)' }),
      });
      return (await response.json()) as { toolCalls: Array<{ ok: boolean; policy?: { decision: string; policyIds?: string[] } }> };
    };

    const support = await ask(await provider.sign({ sub: 'alice-sub-1', groups: ['support'] }));
    const outsider = await ask(await provider.sign({ sub: 'mallory-sub-3', groups: ['marketing'] }));

    expect(support.toolCalls[0], local.server.output()).toMatchObject({ ok: true, policy: { decision: 'allow', policyIds: ['support-refunds'] } });
    // No policy could permit refund for the outsider, so it is not even offered; the call the model makes anyway does not run.
    expect(outsider.toolCalls[0]).toMatchObject({ ok: false });
    const offered = completionBodies(model).map((body) => toolNames(body));
    expect(offered[0]).toContain('refund');
    expect(offered[2]).not.toContain('refund');
  }, 90_000);
});
