/**
 * The chat page and the APIs it talks to, in Chromium against `npm start`: a link whose `?api=`
 * names another origin (here a server that records every request it gets) makes the page send
 * nothing there on load, ask the user first, never send the token of another API, and keep one
 * token per API origin. The page's Content-Security-Policy lets it connect to its own origin and
 * that one API only.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../support/browser.ts';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';

interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

interface RecordingServer {
  /** http://127.0.0.1:<port>: another origin than the page's http://localhost:<port>. */
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** An API that answers any origin (CORS, preflights included) and records what reaches it. */
async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    requests.push({ method: incoming.method ?? '', path: incoming.url ?? '', headers: incoming.headers });
    incoming.resume();
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'authorization, content-type, accept', 'access-control-allow-methods': 'GET, POST, DELETE' };
    if (incoming.method === 'OPTIONS') return void outgoing.writeHead(204, cors).end();
    if (incoming.url === '/health') {
      return void outgoing.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', model: { configured: true, name: 'recorded-model' }, tools: 0 }));
    }
    outgoing.writeHead(404, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'route_not_found', message: 'Nothing here.' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The page's document, in the functions below that run in the browser (this program has no DOM types). */
declare const document: any;
const WAIT = { timeout: 60_000 };

const missing = chromiumMissing();
const title = 'the chat page and the API origins it talks to, in Chromium';
if (missing) console.warn(`Chat page browser tests skipped: ${missing}.`);

describe.skipIf(missing !== undefined)(missing ? `${title} (skipped: ${missing})` : title, () => {
  let server: LocalServer;
  let other: RecordingServer;
  let third: RecordingServer;
  let browser: Browser;
  let page: Page;
  let dataDir: string;
  /** The message of every dialog the page opened, and how the user answers the next ones. */
  const dialogs: string[] = [];
  let answer: 'accept' | 'dismiss' = 'dismiss';
  let dialogShown: (() => void) | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-e2e-chat-origins-'));
    server = await startLocalServer({ LOCAL_DATA_DIR: dataDir });
    other = await startRecordingServer();
    third = await startRecordingServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void (answer === 'accept' ? dialog.accept() : dialog.dismiss());
      dialogShown?.();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await other?.close();
    await third?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const nextDialog = () => new Promise<void>((resolve) => (dialogShown = resolve));
  const status = () => page.locator('#status').textContent();
  const setAuthorization = async (token: string) => {
    await page.locator('details.settings summary').click();
    await page.locator('#authorization').fill(token);
    await page.locator('#authorization').press('Tab');
  };
  /** The Authorization header the browser sends with the page's next GET /health to its own origin. */
  const nextOwnHealthAuthorization = async () => {
    const request = await page.waitForRequest((sent) => sent.url() === `${server.url}/health`, WAIT);
    return (await request.allHeaders()).authorization;
  };
  const ask = (question: string) => page.locator('#question').fill(question).then(() => page.locator('#question').press('Enter'));

  it('sends the token set for its own API to that API', async () => {
    await page.goto(server.url + '/');
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('4 tools'), undefined, WAIT);
    await setAuthorization('own-token');

    const sent = nextOwnHealthAuthorization();
    await page.reload();

    expect(await sent).toBe('own-token');
  });

  it('makes no request on load to an API origin it has not used, and says it will ask', async () => {
    await page.goto(`${server.url}/?api=${other.origin}`);
    await page.waitForLoadState('networkidle');

    expect(other.requests).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(await status()).toContain(other.origin);
    // The token shown (and sent) is this API's: none yet, not the page's own API's.
    expect(await page.locator('#authorization').inputValue()).toBe('');
  });

  it('asks before it talks to that origin, naming it, and sends nothing when the user declines', async () => {
    answer = 'dismiss';
    const asked = nextDialog();
    await ask('What is the weather in Paris?');
    await asked;
    await page.waitForLoadState('networkidle');

    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]).toContain(other.origin);
    expect(other.requests).toEqual([]);
    // Nothing was sent: the question is still there to send.
    expect(await page.locator('#question').inputValue()).toBe('What is the weather in Paris?');
  });

  it('talks to it once the user accepts, without the token of any other API', async () => {
    answer = 'accept';
    const asked = nextDialog();
    await page.locator('#question').press('Enter');
    await asked;
    await page.waitForSelector('article.turn .error, article.turn .turn-footer:not([hidden])', WAIT);

    expect(dialogs).toHaveLength(2);
    expect(dialogs[1]).toContain(other.origin);
    expect(other.requests.some((request) => request.method === 'POST')).toBe(true);
    expect(other.requests.map((request) => request.headers.authorization)).toEqual(other.requests.map(() => undefined));
  });

  it('keeps a token per API origin, and asks no more for an origin the user accepted', async () => {
    await setAuthorization('other-token');
    other.requests.length = 0;
    await page.reload();
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('recorded-model'), undefined, WAIT);

    expect(dialogs).toHaveLength(2);
    expect(other.requests.find((request) => request.method === 'GET' && request.path === '/health')?.headers.authorization).toBe('other-token');

    const sent = nextOwnHealthAuthorization();
    await page.goto(server.url + '/');
    expect(await sent).toBe('own-token');
    expect(await page.locator('#authorization').inputValue()).toBe('own-token');
  });

  it('may connect to its own origin and the API its ?api= names, and to nothing else (CSP)', async () => {
    const response = await page.goto(`${server.url}/?api=${other.origin}`);
    expect(response?.headers()['content-security-policy']).toContain(`connect-src 'self' ${other.origin};`);

    const outcome = await page.evaluate((url) => fetch(url).then(() => 'sent', () => 'blocked'), `${third.origin}/health`);

    expect(outcome).toBe('blocked');
    expect(third.requests).toEqual([]);
  });
});
