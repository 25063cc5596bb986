/**
 * The conversation's files in the chat page (files: true), in a real headless browser against
 * `npm start`: the list appears as the turn uploads, a file opens as text in the side panel (an
 * HTML file as its source: its script never runs in the page), with a download, and the list is
 * there again when the conversation is reopened after a reload.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../support/browser.ts';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const WAIT = { timeout: 60_000 };
const PAGE = '<!doctype html><p id="planted">x</p><script>window.parent.document.title = "pwned"</script><img src=x onerror="document.title=\'pwned\'">';
const TABLE = 'city,celsius\n上海,24\n';
declare const document: any;

const missing = chromiumMissing();
const title = 'the files of a conversation in the chat page';
if (missing) console.warn(`Chat page browser tests skipped: ${missing}.`);

describe.skipIf(missing !== undefined)(missing ? `${title} (skipped: ${missing})` : title, () => {
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let browser: Browser;
  let page: Page;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-e2e-page-files-'));
    const agentConfig = join(dataDir, 'agent.yml');
    writeFileSync(agentConfig, 'model: { maxRetries: 0 }\nfiles: true\n');
    model = await startScriptedOpenAIServer([
      toolCallsReply([
        { id: 'up_table', name: 'file_tool', arguments: { command: 'upload', filename: 'cities.csv', description: 'Temperatures by city', content: TABLE } },
        { id: 'up_page', name: 'file_tool', arguments: { command: 'upload', filename: 'page.html', description: 'A page', content: PAGE } },
      ]),
      textReply('Saved two files.'),
    ]);
    server = await startLocalServer({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LOCAL_DATA_DIR: join(dataDir, 'db'), AGENT_CONFIG: agentConfig });
    browser = await launchChromium();
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const fileNames = (current: Page) => current.locator('#files li button.file').allTextContents();

  it('lists the files as the turn uploads them, and opens one as text, with a download', async () => {
    await page.goto(server.url + '/');
    expect(await page.locator('#files').isHidden()).toBe(true);
    await page.locator('#question').fill('Save the table and the page.');
    await page.locator('#question').press('Enter');
    await page.waitForSelector('article.turn .turn-footer:not([hidden])', WAIT);

    expect(await fileNames(page)).toEqual(['cities.csv', 'page.html']);
    expect(await page.locator('#files li button.file').first().getAttribute('title')).toBe('Temperatures by city');

    await page.locator('#files button.file', { hasText: 'cities.csv' }).click();
    await page.waitForSelector('#inspector:not([hidden]) .file-text', WAIT);
    expect(await page.locator('#inspector-title').textContent()).toBe('cities.csv');
    expect(await page.locator('#inspector .file-text').textContent()).toBe(TABLE);
    const download = page.waitForEvent('download', WAIT);
    await page.locator('#inspector a.download').click();
    expect((await download).suggestedFilename()).toBe('cities.csv');
  });

  it('shows an HTML file as its source: nothing in it becomes markup or runs', async () => {
    await page.locator('#files button.file', { hasText: 'page.html' }).click();
    await page.waitForFunction(() => document.getElementById('inspector-title')?.textContent === 'page.html', undefined, WAIT);
    await page.waitForSelector('#inspector .file-text', WAIT);

    expect(await page.locator('#inspector .file-text').textContent()).toBe(PAGE);
    expect(await page.locator('#planted').count()).toBe(0);
    expect(await page.locator('#inspector img, #inspector script').count()).toBe(0);
    expect(await page.title()).toBe('MCP agent');
  });

  it('lists the files again when the conversation is reopened after a reload', async () => {
    await page.reload();
    await page.waitForSelector('#files:not([hidden]) li', WAIT);
    expect(await fileNames(page)).toEqual(['cities.csv', 'page.html']);
  });
});
