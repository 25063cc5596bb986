/**
 * Per-user connections (auth.mode: per-user, docs/users-own-accounts.md) through `npm start` as a
 * real process: a local OAuth 2.1 authorization server and an MCP server that serves each bearer's
 * user their own data (test/support/oauth-authorization-server.ts, per-user-mcp-server.ts), two
 * owners told apart as API Gateway's authorizer would (AUTH_MODE=cognito, LOCAL_CALLER_HEADER), and
 * a scripted model that calls the first tool of the per-user server it is offered (the server's
 * own tools once known, else its connect tool) and then repeats what the tool answered.
 *
 * The store is a dynalite of the test's own (DYNAMODB_ENDPOINT), so the test can read every item
 * the service wrote and look for tokens in it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startDynalite, type LocalDynamo } from '../../lib/local/dynalite.ts';
import { createLocalClient } from '../support/dynalite.ts';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { startOAuthAuthorizationServer, type OAuthAuthorizationServer } from '../support/oauth-authorization-server.ts';
import { startPerUserMcpServer, type PerUserMcpServer } from '../support/per-user-mcp-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ChatRequestBody, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const CALLER = 'x-caller';

/** Calls `wanted` when offered (else the connect tool), then says what the tool answered. */
function toolCallingModel(wanted: string[]) {
  return (body: ChatRequestBody) => {
    const last = body.messages.at(-1)!;
    if (last.role === 'tool') return textReply(`Tool said: ${String(last.content)}`);
    const offered = new Set((body.tools ?? []).map((tool) => String((tool.function as { name: string }).name)));
    const calls = wanted.filter((name) => offered.has(name));
    const chosen = calls.length > 0 ? calls : ['connect_crm'];
    return toolCallsReply(chosen.map((name) => ({ id: `call_${name}_${randomUUID().slice(0, 8)}`, name, arguments: {} })));
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Setup {
  local: LocalServer;
  authorization: OAuthAuthorizationServer;
  crm: PerUserMcpServer;
  model: ScriptedOpenAIServer;
  dynamo: LocalDynamo;
  dataDir: string;
  tableName: string;
  restart(): Promise<void>;
}

describe('per-user connections, through the local server', () => {
  let opened: Setup | undefined;
  afterEach(async () => {
    const setup = opened;
    opened = undefined;
    await setup?.local.stop();
    await Promise.all([setup?.model.close(), setup?.crm.close(), setup?.authorization.close()]);
    await setup?.dynamo.close();
    // setup.dataDir is removed after this, when the test finishes (temporaryFolder), even if the start failed.
  });

  async function start(options: { accessTokenSeconds?: number; oauth?: string; wanted?: string[] } = {}): Promise<Setup> {
    const authorization = await startOAuthAuthorizationServer({ accessTokenSeconds: options.accessTokenSeconds ?? 3600 });
    const crm = await startPerUserMcpServer({ authorization, notes: { alice: ['Call Acme', 'Renew contract'], bob: ['Pay rent'] } });
    const model = await startScriptedOpenAIServer(toolCallingModel(options.wanted ?? ['list_notes']));
    const dynamo = await startDynalite();
    const dataDir = temporaryFolder('per-user-e2e-');
    const tableName = `per-user-${randomUUID()}`;
    const agentYml = join(dataDir, 'agent.yml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(agentYml, `tools: { callTimeoutSeconds: 60, connectTimeoutSeconds: 30 }\nmcpServers:\n  crm:\n    url: ${crm.url}\n    auth: { mode: per-user }\n${options.oauth ? `    oauth: ${options.oauth}\n` : ''}`);
    const port = String(await freePort());
    const environment = {
      AGENT_CONFIG: agentYml,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'sk-test',
      LLM_MODEL: 'gpt-4-turbo',
      LOCAL_DATA_DIR: join(dataDir, 'data'),
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      CONVERSATIONS_TABLE: tableName,
      AUTH_MODE: 'cognito',
      LOCAL_CALLER_HEADER: CALLER,
      PORT: port,
    };
    const setup: Setup = {
      local: await startLocalServer(environment),
      authorization,
      crm,
      model,
      dynamo,
      dataDir,
      tableName,
      async restart() {
        await setup.local.stop();
        setup.local = await startLocalServer(environment);
      },
    };
    opened = setup;
    return setup;
  }

  const ask = async (setup: Setup, owner: string, conversationId: string, message: string) => {
    const response = await fetch(`${setup.local.url}/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [CALLER]: owner },
      body: JSON.stringify({ message }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  const answer = async (setup: Setup, owner: string, conversationId: string, toolCallId: string, action: 'accept' | 'decline') => {
    const response = await fetch(`${setup.local.url}/conversations/${conversationId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [CALLER]: owner },
      body: JSON.stringify({ decisions: [{ toolCallId, answer: { action } }] }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  /** The person opens the link, the provider consents for `user` at once and sends the browser back: the callback's page. */
  const consent = async (url: string, user: string) => {
    const authorize = new URL(url);
    authorize.searchParams.set('login_hint', user);
    const redirect = await fetch(authorize, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    // A browser redirect: no API credentials (no caller header).
    const callback = await fetch(redirect.headers.get('location')!);
    return { status: callback.status, contentType: callback.headers.get('content-type'), html: await callback.text() };
  };

  /** Pauses for `owner`, consents, accepts: the accepted turn's result. */
  const connect = async (setup: Setup, owner: string, conversationId: string) => {
    const paused = await ask(setup, owner, conversationId, 'Show my notes');
    expect(paused.body.stopReason).toBe('input_required');
    const pending = paused.body.pendingElicitations[0];
    expect((await consent(pending.url, owner)).status).toBe(200);
    return answer(setup, owner, conversationId, pending.toolCallId, 'accept');
  };

  const connectionsOf = async (setup: Setup, owner: string) => (await (await fetch(`${setup.local.url}/connections`, { headers: { [CALLER]: owner } })).json()) as any;

  it("pauses a new owner's call with the provider's consent URL, and after consent and accept each owner sees only their own data", async () => {
    // Prepare
    const setup = await start();

    // Act: alice asks; her call waits for her to connect
    const paused = await ask(setup, 'alice', 'alice-1', 'Show my notes');

    // Assess: a URL-mode elicitation with the provider's authorization URL (PKCE S256, a state, the server as resource)
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ mode: 'url', server: 'crm', name: 'connect_crm' }] });
    const pending = paused.body.pendingElicitations[0];
    expect(pending.message).toMatch(/connect your crm account/i);
    const url = new URL(pending.url);
    expect(`${url.origin}/`).toBe(setup.authorization.issuer);
    expect(url.pathname).toBe('/authorize');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(url.searchParams.get('resource')).toBe(setup.crm.url);
    expect(url.searchParams.get('redirect_uri')).toBe(`${setup.local.url}/connections/crm/callback`);

    // Act: she consents at the provider; the browser comes back to the callback
    const page = await consent(pending.url, 'alice');

    // Assess: plain HTML that says so, and no token in it
    expect(page).toMatchObject({ status: 200, contentType: expect.stringContaining('text/html') });
    expect(page.html).toContain('Your crm account is connected');
    for (const secret of setup.authorization.secretsIssued) expect(page.html).not.toContain(secret);

    // Act: the same link again (a state works once)
    const again = await fetch(pending.url.replace(/$/, '&login_hint=alice'), { redirect: 'manual' }).then((redirect) => fetch(redirect.headers.get('location')!));
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('connection_state_invalid');

    // Act: she accepts; the call runs with her token
    const accepted = await answer(setup, 'alice', 'alice-1', pending.toolCallId, 'accept');
    expect(accepted.body).toMatchObject({ stopReason: 'completed' });
    expect(accepted.body.reply).toContain('connected');

    // Act: her next question gets the server's own tools, called as her
    const hers = await ask(setup, 'alice', 'alice-2', 'Show my notes');
    expect(hers.body).toMatchObject({ stopReason: 'completed', reply: "Tool said: alice's notes: Call Acme; Renew contract" });

    // Act: bob, who never connected, is asked to connect his own account, and then sees only his
    const bobs = await connect(setup, 'bob', 'bob-1');
    expect(bobs.body).toMatchObject({ stopReason: 'completed', reply: "Tool said: bob's notes: Pay rent" });
    const alicesAgain = await ask(setup, 'alice', 'alice-3', 'Show my notes');
    expect(alicesAgain.body.reply).toBe("Tool said: alice's notes: Call Acme; Renew contract");

    // Assess: every call reached the server with its owner's token, and only with it
    const calls = setup.crm.events.filter((event) => event.method === 'tools/call');
    // (alice's first call was the connect tool, which lists tools and calls none)
    expect(calls.map((event) => event.user)).toEqual(['alice', 'bob', 'alice']);
    const tokensOf = (user: string) => new Set(setup.crm.events.filter((event) => event.user === user).map((event) => event.token));
    for (const token of tokensOf('alice')) expect(tokensOf('bob').has(token)).toBe(false);

    // Assess: GET /connections lists each owner's own, without tokens
    const listed = await connectionsOf(setup, 'alice');
    expect(listed).toEqual({ connections: [{ server: 'crm', connected: true, scopes: ['crm:read', 'offline_access'], expiresAt: expect.any(String), connectedAt: expect.any(String) }] });
    expect(await connectionsOf(setup, 'carol')).toEqual({ connections: [{ server: 'crm', connected: false }] });
    for (const secret of setup.authorization.secretsIssued) expect(JSON.stringify(listed)).not.toContain(secret);

    // Assess: no token in the store or in any file of the data folder, and the key file is 0600
    const items = await createLocalClient(setup.dynamo.endpoint).send(new ScanCommand({ TableName: setup.tableName }));
    const stored = JSON.stringify(items.Items);
    expect(stored).toContain('#connections#crm');
    for (const secret of setup.authorization.secretsIssued) expect(stored).not.toContain(secret);
    const keyFile = join(setup.dataDir, 'data', 'connection-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    for (const file of filesUnder(join(setup.dataDir, 'data'))) {
      const content = readFileSync(file, 'latin1');
      for (const secret of setup.authorization.secretsIssued) expect(content).not.toContain(secret);
    }
    // ... and none in the service's log
    for (const secret of setup.authorization.secretsIssued) expect(setup.local.output()).not.toContain(secret);
  }, 120_000);

  it('answers the model that the user did not connect when they decline', async () => {
    // Prepare
    const setup = await start();
    const paused = await ask(setup, 'bob', 'bob-decline', 'Show my notes');
    const pending = paused.body.pendingElicitations[0];

    // Act
    const declined = await answer(setup, 'bob', 'bob-decline', pending.toolCallId, 'decline');

    // Assess
    expect(declined.body.stopReason).toBe('completed');
    expect(declined.body.reply).toMatch(/did not connect their crm account \(they declined\)/);
    expect(setup.crm.events.filter((event) => event.method === 'tools/call')).toEqual([]);
  }, 120_000);

  it('answers a refusal at the provider and a forged state with an HTML error page and 400', async () => {
    // Prepare
    const setup = await start();
    const paused = await ask(setup, 'bob', 'bob-refuses', 'Show my notes');
    setup.authorization.refuseNext = true;

    // Act
    const refused = await consent(paused.body.pendingElicitations[0].url, 'bob');
    const forged = await fetch(`${setup.local.url}/connections/crm/callback?code=x&state=%3Cscript%3Ealert(1)%3C%2Fscript%3E`);
    const unknown = await fetch(`${setup.local.url}/connections/nowhere/callback?code=x&state=y`);

    // Assess
    expect(refused).toMatchObject({ status: 400, contentType: expect.stringContaining('text/html') });
    expect(refused.html).toContain('access_denied');
    expect(refused.html).toContain('connection_refused');
    expect(forged.status).toBe(400);
    const forgedPage = await forged.text();
    expect(forgedPage).toContain('connection_state_invalid');
    expect(forgedPage).not.toContain('<script>');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('connection_server_unknown');
  }, 120_000);

  it('revokes at the provider and forgets on DELETE, after which the next call pauses again', async () => {
    // Prepare
    const setup = await start();
    await connect(setup, 'alice', 'alice-revoke');

    // Act
    const deleted = await fetch(`${setup.local.url}/connections/crm`, { method: 'DELETE', headers: { [CALLER]: 'alice' } });
    const unknown = await fetch(`${setup.local.url}/connections/nowhere`, { method: 'DELETE', headers: { [CALLER]: 'alice' } });
    const after = await ask(setup, 'alice', 'alice-revoke-2', 'Show my notes');

    // Assess
    expect(deleted.status).toBe(204);
    expect(setup.authorization.events.filter((event) => event.kind === 'revoke')).toEqual([
      { kind: 'revoke', user: 'alice', tokenType: 'refresh_token' },
      { kind: 'revoke', user: 'alice', tokenType: 'access_token' },
    ]);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('connection_server_unknown');
    expect(await connectionsOf(setup, 'alice')).toEqual({ connections: [{ server: 'crm', connected: false }] });
    expect(after.body).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ mode: 'url', server: 'crm' }] });
  }, 120_000);

  it('refreshes a token before it expires, once for two calls of one owner at the same time', async () => {
    // Prepare: every token is within refreshBeforeExpirySeconds of expiring, so each use renews it first
    const setup = await start({ oauth: '{ refreshBeforeExpirySeconds: 3600 }', wanted: ['list_notes', 'whoami'] });
    await connect(setup, 'alice', 'alice-refresh');
    const refreshes = () => setup.authorization.events.filter((event) => event.kind === 'token' && event.grant === 'refresh_token').length;
    const before = refreshes();

    // Act: two calls of hers in one round
    const both = await ask(setup, 'alice', 'alice-refresh-2', 'Who am I and what are my notes?');

    // Assess: one refresh for both (a rotating refresh token is spent once), no 401 seen, both answered as her
    expect(both.body.stopReason).toBe('completed');
    expect(both.body.toolCalls.map((call: { name: string; ok: boolean }) => [call.name, call.ok])).toEqual([['list_notes', true], ['whoami', true]]);
    expect(refreshes()).toBe(before + 1);
    expect(setup.authorization.events.filter((event) => event.kind === 'refresh-refused')).toEqual([]);
    expect(setup.crm.events.filter((event) => event.status === 401)).toEqual([]);
  }, 120_000);

  it('refreshes a token the server refuses with 401 and sends the call again', async () => {
    // Prepare
    const setup = await start();
    await connect(setup, 'alice', 'alice-401');
    const seen = setup.crm.events.length;

    // Act: the provider ends every access token before it expires; her next call meets a 401
    setup.authorization.expireAccessTokens();
    const afterExpiry = await ask(setup, 'alice', 'alice-401-2', 'Show my notes');

    // Assess: renewed with her refresh token and sent again, answered with her data
    expect(afterExpiry.body).toMatchObject({ stopReason: 'completed', reply: "Tool said: alice's notes: Call Acme; Renew contract" });
    const later = setup.crm.events.slice(seen);
    expect(later.some((event) => event.status === 401)).toBe(true);
    expect(later.at(-1)).toMatchObject({ status: 200, user: 'alice', method: 'tools/call' });
    expect(setup.authorization.events.filter((event) => event.kind === 'token' && event.grant === 'refresh_token')).toHaveLength(1);
  }, 120_000);

  it('pauses again for the owner to connect when the provider ended their grant and refuses the refresh', async () => {
    // Prepare
    const setup = await start();
    await connect(setup, 'alice', 'alice-ended');

    // Act: she withdraws consent at the provider; her next call meets a 401 and a refused refresh
    setup.authorization.endGrantsOf('alice');
    const after = await ask(setup, 'alice', 'alice-ended-2', 'Show my notes');

    // Assess: the connection is forgotten and the call waits for a new one
    expect(after.body).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ mode: 'url', server: 'crm', name: 'list_notes' }] });
    expect(setup.authorization.events.filter((event) => event.kind === 'refresh-refused')).toHaveLength(1);
    expect(await connectionsOf(setup, 'alice')).toEqual({ connections: [{ server: 'crm', connected: false }] });

    // Act: she connects again; then, in a new process (no session open yet), the grant ends again
    const pending = after.body.pendingElicitations[0];
    expect((await consent(pending.url, 'alice')).status).toBe(200);
    await setup.restart();
    setup.authorization.endGrantsOf('alice');
    const afterRestart = await ask(setup, 'alice', 'alice-ended-3', 'Show my notes');

    // Assess: refused while the session opened, it pauses all the same
    expect(afterRestart.body).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ mode: 'url', server: 'crm' }] });
  }, 120_000);

  it('runs the call with the connection made before a restart when the owner accepts after it', async () => {
    // Prepare: paused, and consented
    const setup = await start();
    const paused = await ask(setup, 'alice', 'alice-restart', 'Show my notes');
    const pending = paused.body.pendingElicitations[0];
    expect((await consent(pending.url, 'alice')).status).toBe(200);

    // Act
    await setup.restart();
    const accepted = await answer(setup, 'alice', 'alice-restart', pending.toolCallId, 'accept');
    const next = await ask(setup, 'alice', 'alice-restart-2', 'Show my notes');

    // Assess
    expect(accepted.body).toMatchObject({ stopReason: 'completed' });
    expect(next.body.reply).toBe("Tool said: alice's notes: Call Acme; Renew contract");
  }, 120_000);
});

function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}
