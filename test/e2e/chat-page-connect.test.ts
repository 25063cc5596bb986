/**
 * Connecting a user's own account from the chat page, in Chromium against `npm start`, with a real
 * local OAuth 2.1 authorization server that consents at once and an MCP server that checks each
 * bearer token's user (test/support/oauth-authorization-server.ts, per-user-mcp-server.ts): the
 * question shows the connect link; the user follows it in a second tab; the provider sends that
 * tab to the callback, which says the account is connected; back on the chat tab the page sees the
 * connection (GET /connections), answers the question itself, and the turn goes on with the call
 * run with that user's token. Then the connection is listed, and Disconnect forgets it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../support/browser.ts';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { startOAuthAuthorizationServer, type OAuthAuthorizationServer } from '../support/oauth-authorization-server.ts';
import { startPerUserMcpServer, type PerUserMcpServer } from '../support/per-user-mcp-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ChatRequestBody, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const WAIT = { timeout: 60_000 };
declare const document: any;

const missing = chromiumMissing();
const title = 'connecting a user’s own account from the chat page, in Chromium against npm start';
if (missing) console.warn(`Chat page browser tests skipped: ${missing}.`);

/**
 * The model: calls the server's list_notes once offered, else its connect tool; with a tool's
 * answer in hand, calls list_notes if it was not called yet and is offered now, else repeats it.
 */
function notesModel(body: ChatRequestBody) {
  const offered = new Set((body.tools ?? []).map((tool) => String((tool.function as { name: string }).name)));
  const listed = body.messages.some((message) => message.role === 'tool' && String(message.content).includes('notes:'));
  const last = body.messages.at(-1)!;
  if (last.role === 'tool' && (listed || !offered.has('list_notes'))) return textReply(`Tool said: ${String(last.content)}`);
  const id = `call_${body.messages.filter((message) => message.role === 'tool').length + 1}`;
  return toolCallsReply([{ id, name: offered.has('list_notes') ? 'list_notes' : 'connect_crm', arguments: {} }]);
}

describe.skipIf(missing !== undefined)(missing ? `${title} (skipped: ${missing})` : title, () => {
  let authorization: OAuthAuthorizationServer;
  let crm: PerUserMcpServer;
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let browser: Browser;
  let page: Page;
  let dataDir: string;

  beforeAll(async () => {
    authorization = await startOAuthAuthorizationServer();
    crm = await startPerUserMcpServer({ authorization, notes: { alice: ['Call Acme', 'Renew contract'], bob: ['Pay rent'] } });
    model = await startScriptedOpenAIServer(notesModel);
    dataDir = mkdtempSync(join(tmpdir(), 'agent-e2e-chat-page-connect-'));
    const agentConfig = join(dataDir, 'agent.yml');
    writeFileSync(agentConfig, `tools: { callTimeoutSeconds: 60, connectTimeoutSeconds: 30 }\nmcpServers:\n  crm:\n    url: ${crm.url}\n    auth: { mode: per-user }\n`);
    server = await startLocalServer({ AGENT_CONFIG: agentConfig, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo', LOCAL_DATA_DIR: join(dataDir, 'data') });
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.goto(server.url + '/');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await Promise.all([model?.close(), crm?.close(), authorization?.close()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const turn = () => page.locator('article.turn').last();

  it('shows the connect link, and once the user consented in another tab the turn goes on by itself with their token', async () => {
    let listings = 0;
    const approvals: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (request.method() === 'GET' && path === '/connections') listings += 1;
      if (request.method() === 'POST' && path.endsWith('/approvals')) approvals.push(request.postData() ?? '');
    });

    await page.locator('#question').fill('Show my notes');
    await page.locator('#question').press('Enter');
    const question = turn().locator('.approvals:not([hidden]) .pending-call.question');
    await question.waitFor(WAIT);

    // The connect link: the provider's consent page, in a new tab.
    expect(await question.locator('.tool-name').textContent()).toBe('connect_crm');
    expect(await question.locator('.question-message').textContent()).toMatch(/connect your crm account/i);
    const link = question.locator('a.visit-link');
    const href = (await link.getAttribute('href'))!;
    expect(`${new URL(href).origin}/`).toBe(authorization.issuer);
    expect(new URL(href).pathname).toBe('/authorize');
    expect(await question.locator('code.url').textContent()).toBe(href);
    expect(await link.getAttribute('target')).toBe('_blank');

    // Before the link is opened, coming back to the window checks nothing. (A check would start
    // its fetch within the focus event; requests are reported in the order they are made.)
    const before = listings;
    const health = page.waitForRequest((request) => new URL(request.url()).pathname === '/health', WAIT);
    await page.evaluate(() => {
      (globalThis as any).dispatchEvent(new Event('focus'));
      void (globalThis as any).fetch('/health');
    });
    await health;
    expect(listings).toBe(before);

    // The user follows the link: the provider consents for alice at once and sends the tab to the callback.
    authorization.user = 'alice';
    const [consent] = await Promise.all([browser.context.waitForEvent('page'), link.click()]);
    await consent.waitForURL((address) => address.pathname === '/connections/crm/callback', WAIT);
    await consent.waitForLoadState();
    expect(await consent.locator('body').textContent()).toContain('Your crm account is connected');

    // Back on the chat tab: the page sees the connection and answers for the user, once.
    await consent.close();
    await page.bringToFront();
    await page.waitForFunction(() => document.querySelector('article.turn:last-child .turn-footer .summary')?.textContent?.includes('completed'), undefined, WAIT);

    expect(await turn().locator('.message.note.resumed').textContent()).toBe('Connected to crm: the page answered for you, and the turn goes on.');
    expect(approvals.map((body) => JSON.parse(body))).toEqual([{ decisions: [{ toolCallId: 'call_1', answer: { action: 'accept' } }] }]);
    expect(await turn().locator('.approvals').isHidden()).toBe(true);
    expect(await turn().locator('.blocks > .message.assistant').last().textContent()).toBe("Tool said: alice's notes: Call Acme; Renew contract");
    // Every request the MCP server took carried alice's token, and her notes were listed.
    const served = crm.events.filter((event) => event.status === 200);
    expect(served.length).toBeGreaterThan(0);
    expect(new Set(served.map((event) => event.user))).toEqual(new Set(['alice']));
    expect(crm.events.filter((event) => event.method === 'tools/call').map((event) => [event.tool, event.user])).toEqual([['list_notes', 'alice']]);
  });

  it('lists the connection, and Disconnect forgets it', async () => {
    const listed = page.locator('#connections li[data-server="crm"]');
    await listed.waitFor(WAIT);
    expect(await listed.locator('.connection-server').getAttribute('title')).toContain('crm:read');

    page.once('dialog', (dialog) => void dialog.accept());
    await listed.getByRole('button', { name: 'Disconnect' }).click();
    await page.locator('#connections').waitFor({ state: 'hidden', ...WAIT });

    const connections = (await (await fetch(`${server.url}/connections`)).json()) as { connections: Array<{ server: string; connected: boolean }> };
    expect(connections.connections).toEqual([{ server: 'crm', connected: false }]);
    expect(authorization.events.some((event) => event.kind === 'revoke' && event.user === 'alice')).toBe(true);
  });
});
