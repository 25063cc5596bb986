/**
 * On-behalf-of tokens through `npm start` (AUTH_MODE=cognito; LOCAL_CALLER_HEADER stands in for
 * the authorizer, and the Authorization header carries the caller's own token as it does behind
 * API Gateway): an MCP server with `auth.mode: token-exchange` sees each caller as themselves. The
 * token endpoint and the MCP server are a real HTTP token endpoint and the SDK's server behind its
 * bearer check (test/support/token-exchange-server.ts); the model is scripted to call my_notes and
 * repeat what the tool answered. `auth.mode: enterprise-managed` likewise, against an enterprise
 * identity provider issuing ID-JAGs and an authorization server taking them (enterprise-idp-server.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConfiguredLocalServer, type ConfiguredLocalServer } from '../support/configured-local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ChatRequestBody, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { ID_JAG_TYPE, ID_TOKEN_TYPE, startEnterpriseDouble, type EnterpriseDouble } from '../support/enterprise-idp-server.ts';
import { ACCESS_TOKEN_TYPE, startTokenExchangeDouble, TOKEN_EXCHANGE_GRANT, type TokenExchangeDouble } from '../support/token-exchange-server.ts';

const ALICE_TOKEN = 'alice-own-token-7f3a9c2e41d8';
const BOB_TOKEN = 'bob-own-token-0b6e5d4c3a21';
const MALLORY_TOKEN = 'mallory-own-token-9e8d7c6b5a43';
const CLIENT_SECRET = 'agent-client-secret-5a1b2c3d';

describe('auth.mode token-exchange through npm start', () => {
  let identity: TokenExchangeDouble;
  let model: ScriptedOpenAIServer;
  let local: ConfiguredLocalServer;

  beforeAll(async () => {
    identity = await startTokenExchangeDouble({
      users: { [ALICE_TOKEN]: 'alice', [BOB_TOKEN]: 'bob', [MALLORY_TOKEN]: 'mallory' },
      refused: ['mallory'],
      clientId: 'mcp-agent',
      clientSecret: CLIENT_SECRET,
      notes: { alice: ['buy oat milk'], bob: ['call the dentist'] },
    });
    // Every turn: call my_notes (whoami when asked who the user is), then answer with what the tool said.
    model = await startScriptedOpenAIServer((body: ChatRequestBody) => {
      const last = body.messages.at(-1)!;
      if (last['role'] === 'tool') return textReply(`The tool said: ${String(last['content'])}`);
      const tool = String(last['content']).includes('Who am I') ? 'whoami' : 'my_notes';
      return toolCallsReply([{ id: `call_${tool}`, name: tool, arguments: {} }]);
    });
    const agentYml = [
      'tools: { reconnectMaxDelaySeconds: 1 }',
      'mcpServers:',
      '  notes:',
      '    type: http',
      `    url: ${identity.url}`,
      '    auth: { mode: token-exchange }',
      '    requireApproval: [whoami]',
      `    oauth: { clientId: mcp-agent, clientSecret: "\${NOTES_CLIENT_SECRET}", authorizationServer: ${identity.issuer} }`,
      '',
    ].join('\n');
    local = await startConfiguredLocalServer(agentYml, model, { AUTH_MODE: 'cognito', LOCAL_CALLER_HEADER: 'x-caller', NOTES_CLIENT_SECRET: CLIENT_SECRET, POWERTOOLS_LOG_LEVEL: 'DEBUG' });
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    await model?.close();
    await identity?.close();
  });

  const ask = async (caller: string, token: string | undefined, message: string) => {
    const response = await fetch(`${local.server.url}/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-caller': caller, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ message }),
    });
    return { status: response.status, body: (await response.json()) as { conversationId: string; reply: string; toolCalls: Array<{ ok: boolean }> } };
  };

  it('exchanges the caller\'s token (RFC 8693, with the client\'s Basic credentials) and the MCP server sees that user', async () => {
    const answer = await ask('alice', ALICE_TOKEN, 'What are my notes?');

    expect(answer.status).toBe(201);
    expect(answer.body.reply, local.server.output()).toBe('The tool said: notes of alice: buy oat milk');
    expect(identity.exchanges.at(-1)).toEqual({
      status: 200,
      clientId: 'mcp-agent',
      body: { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: ALICE_TOKEN, subject_token_type: ACCESS_TOKEN_TYPE, requested_token_type: ACCESS_TOKEN_TYPE, resource: identity.url },
    });
    const call = identity.mcpRequests.find((request) => request.method === 'tools/call');
    expect(call).toEqual({ status: 200, method: 'tools/call', subject: 'alice', audience: identity.url });
  });

  it('shows two callers their own data, and exchanges once per caller while the token lasts', async () => {
    const bob = await ask('bob', BOB_TOKEN, 'What are my notes?');
    const alice = await ask('alice', ALICE_TOKEN, 'And again?');

    expect(bob.body.reply).toBe('The tool said: notes of bob: call the dentist');
    expect(alice.body.reply).toBe('The tool said: notes of alice: buy oat milk');
    const subjects = identity.exchanges.filter((exchange) => exchange.status === 200).map((exchange) => exchange.body['subject_token']);
    expect(subjects).toEqual([ALICE_TOKEN, BOB_TOKEN]);
    expect(identity.mcpRequests.filter((request) => request.method === 'tools/call').map((request) => request.subject)).toEqual(['alice', 'bob', 'alice']);
  });

  it('answers the model with the endpoint\'s reason when the exchange is refused, and the server is not called', async () => {
    const callsBefore = identity.mcpRequests.filter((request) => request.method === 'tools/call').length;

    const answer = await ask('mallory', MALLORY_TOKEN, 'What are my notes?');

    expect(answer.status).toBe(201);
    expect(answer.body.toolCalls[0]).toMatchObject({ ok: false });
    expect(answer.body.reply).toContain('exchanging the user\'s token for one of this server was refused (invalid_grant: mallory may not use this resource (HTTP 400))');
    expect(identity.mcpRequests.filter((request) => request.method === 'tools/call')).toHaveLength(callsBefore);
    expect(local.server.output()).toContain('mcp token exchange refused');
  });

  it('answers the model that there is no user token when the caller presented none', async () => {
    const answer = await ask('carol', undefined, 'What are my notes?');

    expect(answer.status).toBe(201);
    expect(answer.body.toolCalls[0]).toMatchObject({ ok: false });
    expect(answer.body.reply).toContain('this turn has no user token');
  });

  it('runs an approved call with the token of the caller who approved it, the paused turn having stored none', async () => {
    const paused = await ask('bob', BOB_TOKEN, 'Who am I?');
    expect(paused.body).toMatchObject({ stopReason: 'approval_required' });
    const toolCallId = (paused.body as unknown as { pendingApprovals: Array<{ toolCallId: string }> }).pendingApprovals[0]!.toolCallId;

    const resumed = await fetch(`${local.server.url}/conversations/${paused.body.conversationId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-caller': 'bob', authorization: `Bearer ${BOB_TOKEN}` },
      body: JSON.stringify({ decisions: [{ toolCallId, approved: true }] }),
    });

    expect(resumed.status).toBe(200);
    expect(((await resumed.json()) as { reply: string }).reply).toBe('The tool said: you are bob');
  });

  it('keeps the callers\' tokens and the exchanged ones out of the stored conversations and the log', async () => {
    const conversation = await fetch(`${local.server.url}/conversations/${(await ask('alice', ALICE_TOKEN, 'Once more')).body.conversationId}`, { headers: { 'x-caller': 'alice', authorization: `Bearer ${ALICE_TOKEN}` } });
    const stored = await conversation.text();
    expect(conversation.status).toBe(200);
    expect(stored).toContain('notes of alice');
    const secrets = [ALICE_TOKEN, BOB_TOKEN, MALLORY_TOKEN, CLIENT_SECRET, ...identity.issued];
    const files = filesUnder(join(local.folder, 'data')).map((path) => readFileSync(path).toString('latin1'));
    expect(files.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(stored).not.toContain(secret);
      expect(local.server.output()).not.toContain(secret);
      for (const file of files) expect(file.includes(secret), secret).toBe(false);
    }
  });
});

describe('auth.mode enterprise-managed through npm start', () => {
  const ALICE_ID_TOKEN = 'alice-id-token-from-the-enterprise-idp-3c4d';
  const IDP_SECRET = 'idp-client-secret-8e7f';
  const AS_SECRET = 'as-client-secret-6a5b';
  let enterprise: EnterpriseDouble;
  let model: ScriptedOpenAIServer;
  let local: ConfiguredLocalServer;

  beforeAll(async () => {
    enterprise = await startEnterpriseDouble({
      idTokens: { [ALICE_ID_TOKEN]: 'alice' },
      identityProviderClient: { id: 'agent-at-idp', secret: IDP_SECRET },
      authorizationServerClient: { id: 'agent', secret: AS_SECRET },
      notes: { alice: ['quarterly plan'] },
    });
    model = await startScriptedOpenAIServer((body: ChatRequestBody) => {
      const last = body.messages.at(-1)!;
      if (last['role'] === 'tool') return textReply(`The tool said: ${String(last['content'])}`);
      return toolCallsReply([{ id: 'call_notes', name: 'my_notes', arguments: {} }]);
    });
    const agentYml = [
      'mcpServers:',
      '  wiki:',
      '    type: http',
      `    url: ${enterprise.url}`,
      `    auth: { mode: enterprise-managed, identityProvider: { issuer: "${enterprise.identityProviderIssuer}", clientId: agent-at-idp, clientSecret: "\${IDP_SECRET}" } }`,
      `    oauth: { clientId: agent, clientSecret: "\${AS_SECRET}", authorizationServer: "${enterprise.authorizationServerIssuer}" }`,
      '',
    ].join('\n');
    local = await startConfiguredLocalServer(agentYml, model, { AUTH_MODE: 'cognito', LOCAL_CALLER_HEADER: 'x-caller', IDP_SECRET, AS_SECRET, POWERTOOLS_LOG_LEVEL: 'DEBUG' });
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    await model?.close();
    await enterprise?.close();
  });

  it('exchanges the user\'s ID token for an ID-JAG at the identity provider, then for an access token with the jwt-bearer grant; the server sees that user', async () => {
    const response = await fetch(`${local.server.url}/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-caller': 'alice', authorization: `Bearer ${ALICE_ID_TOKEN}` },
      body: JSON.stringify({ message: 'What are my notes?' }),
    });
    const answer = (await response.json()) as { reply: string };

    expect(answer.reply, local.server.output()).toBe('The tool said: notes of alice: quarterly plan');
    expect(enterprise.requests.map((request) => [request.at, request.status])).toEqual([['identity-provider', 200], ['authorization-server', 200]]);
    expect(enterprise.requests[0]!.body).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: ALICE_ID_TOKEN,
      subject_token_type: ID_TOKEN_TYPE,
      requested_token_type: ID_JAG_TYPE,
      audience: enterprise.authorizationServerIssuer,
      resource: enterprise.url,
    });
    expect(enterprise.requests[1]!.body).toEqual({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: enterprise.issued[0] });
    expect(enterprise.mcpRequests.find((request) => request.method === 'tools/call')).toEqual({ status: 200, method: 'tools/call', subject: 'alice', audience: enterprise.url });
    for (const secret of [ALICE_ID_TOKEN, IDP_SECRET, AS_SECRET, ...enterprise.issued]) expect(local.server.output()).not.toContain(secret);
  });
});

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
