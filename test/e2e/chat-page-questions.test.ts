/**
 * Servers' questions in the chat page, in Chromium against `npm start`, with real MCP SDK servers
 * configured with `elicitation: ask`: a URL-mode question shows the server's message and a link
 * that opens its page in a new tab (no opener), Done runs the call again and Decline tells the
 * model, also once the page was reloaded; a javascript: address is shown as text and never made a link; a form's values reach the
 * server, and a form left without its required fields is not sent.
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../support/browser.ts';
import { startConfiguredLocalServer, type ConfiguredLocalServer } from '../support/configured-local-server.ts';
import { waitForOutput } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const URL_SERVER = fileURLToPath(new URL('../fixtures/url-elicitation-server.ts', import.meta.url));
const QUESTIONS_SERVER = fileURLToPath(new URL('../fixtures/questions-server.ts', import.meta.url));
const WAIT = { timeout: 60_000 };
declare const document: any;

const missing = chromiumMissing();
const title = 'servers’ questions in the chat page, in Chromium against npm start';
if (missing) console.warn(`Chat page browser tests skipped: ${missing}.`);

type WireMessage = { role: string; tool_call_id?: string; content?: string };

describe.skipIf(missing !== undefined)(missing ? `${title} (skipped: ${missing})` : title, () => {
  let model: ScriptedOpenAIServer;
  let local: ConfiguredLocalServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    model = await startScriptedOpenAIServer([
      // A URL-mode question, answered Done.
      toolCallsReply([{ id: 'call_link', name: 'connect_account', arguments: {} }]),
      textReply('Your account is linked.'),
      // The same, declined.
      toolCallsReply([{ id: 'call_link_declined', name: 'connect_account', arguments: {} }]),
      textReply('You did not link it.'),
      // A javascript: address.
      toolCallsReply([{ id: 'call_script', name: 'open_script_link', arguments: {} }]),
      textReply('Not opened.'),
      // A form.
      toolCallsReply([{ id: 'call_book', name: 'book_table', arguments: {} }]),
      textReply('Booked for Ada.'),
      // A form answer the service refuses, then one it takes.
      toolCallsReply([{ id: 'call_code', name: 'enter_code', arguments: {} }]),
      textReply('Code taken.'),
    ]);
    const node = JSON.stringify(process.execPath);
    local = await startConfiguredLocalServer([
      'model: { maxRetries: 0 }',
      'tools: { callTimeoutSeconds: 60, connectTimeoutSeconds: 30 }',
      'mcpServers:',
      `  accounts: { command: ${node}, args: [${JSON.stringify(URL_SERVER)}], elicitation: ask }`,
      `  questions: { command: ${node}, args: [${JSON.stringify(QUESTIONS_SERVER)}], elicitation: ask }`,
    ].join('\n'), model);
    await waitForOutput(local.server, /MCP server "questions" \(stdio\): connected/, 60_000);
    browser = await launchChromium();
    // The URL server's page, served here: the test never leaves the machine.
    await browser.context.route('https://accounts.example/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Accounts</title><p>Signed in.</p>' }));
    page = await browser.context.newPage();
    await page.goto(local.server.url + '/');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await local?.close();
    await model?.close();
  });

  const turn = () => page.locator('article.turn').last();
  const ask = async (question: string) => {
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.locator('#question').fill(question);
    await page.locator('#question').press('Enter');
  };
  const completed = () => page.waitForFunction(() => document.querySelector('article.turn:last-child .turn-footer .summary')?.textContent?.includes('completed'), undefined, WAIT);
  const toolMessage = (id: string) => {
    const last = model.requests.filter((request) => request.path === '/v1/chat/completions').at(-1)!.body as { messages: WireMessage[] };
    return last.messages.find((message) => message.role === 'tool' && message.tool_call_id === id)?.content;
  };

  it('shows a URL-mode question with its message and a link to a new tab, and Done runs the call again', async () => {
    await ask('Link my account');
    const question = turn().locator('.approvals:not([hidden]) .pending-call.question');
    await question.waitFor(WAIT);

    expect(await question.locator('.question-message').textContent()).toBe('Sign in to link your account.');
    expect(await question.locator('.tool-head .status').textContent()).toBe('asked by accounts');
    const link = question.locator('a.visit-link');
    expect(await link.getAttribute('href')).toBe('https://accounts.example/link?id=link-1');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await question.locator('code.url').textContent()).toBe('https://accounts.example/link?id=link-1');
    expect(await turn().locator('.tool-call .status').textContent()).toBe('waiting for your answer');
    expect(await turn().locator('.turn-footer .summary').textContent()).toContain('input_required');

    // Once the link was opened, the page watches for a connection; this service has no per-user servers.
    const watched = page.waitForResponse((response) => new URL(response.url()).pathname === '/connections', WAIT);
    const [opened] = await Promise.all([browser.context.waitForEvent('page'), link.click()]);
    await opened.waitForLoadState();
    expect(opened.url()).toBe('https://accounts.example/link?id=link-1');
    expect(await opened.evaluate(() => (globalThis as { opener?: unknown }).opener ?? null)).toBeNull();
    await opened.close();
    const listing = await watched;
    expect(listing.status()).toBe(200);
    expect(await listing.json()).toEqual({ connections: [] });

    await question.getByRole('button', { name: 'Done' }).click();
    await completed();

    expect(await turn().locator('.approvals').isHidden()).toBe(true);
    expect(await turn().locator('.tool-call .result-text').textContent()).toBe('account linked');
    expect(await turn().locator('.blocks > .message.assistant').last().textContent()).toBe('Your account is linked.');
    expect(toolMessage('call_link')).toBe('account linked');
    // No connection showed up: nothing was answered for the user.
    expect(await turn().locator('.resumed').count()).toBe(0);
  });

  it('still asks after a reload, and Decline tells the server, and the model hears the user did not', async () => {
    await ask('Link my account again');
    const question = turn().locator('.approvals:not([hidden]) .pending-call.question');
    await question.waitFor(WAIT);
    // The paused turn, reopened from the service (GET /conversations/{id}), asks the same.
    await page.reload();
    await question.waitFor(WAIT);
    expect(await question.locator('a.visit-link').getAttribute('href')).toBe('https://accounts.example/link?id=link-1');

    await question.getByRole('button', { name: 'Decline' }).click();
    await completed();

    expect(toolMessage('call_link_declined')).toBe('not linked (decline)');
    expect(await turn().locator('.blocks > .message.assistant').last().textContent()).toBe('You did not link it.');
  });

  it('never makes a javascript: address a link, and shows the server’s words as text', async () => {
    await ask('Open the page');
    const question = turn().locator('.approvals:not([hidden]) .pending-call.question');
    await question.waitFor(WAIT);

    expect(await question.locator('a').count()).toBe(0);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await question.locator('.visit-address.unsafe code.url').textContent()).toBe('javascript:document.title="pwned"');
    expect(await question.locator('.question-message').textContent()).toBe('Open this <b>page</b>.');
    expect(await question.locator('b').count()).toBe(0);

    await question.getByRole('button', { name: 'Decline' }).click();
    await completed();
    expect(await page.title()).toBe('MCP agent');
    expect(toolMessage('call_script')).toBe('not visited (decline)');
  });

  it('asks a form: required fields are checked before it is sent, and the values reach the server', async () => {
    await ask('Book a table');
    const question = turn().locator('.approvals:not([hidden]) .pending-call.question');
    await question.waitFor(WAIT);
    expect(await question.locator('.question-message').textContent()).toBe('Who is the table for?');
    expect(await question.locator('.question-field.required .field-label').allTextContents()).toEqual(['Name *', 'Guests *']);
    expect(await question.locator('input[name="guests"]').getAttribute('type')).toBe('number');
    expect(await question.locator('select[name="seating"] option').allTextContents()).toEqual(['(none)', 'indoor', 'outdoor']);

    // Nothing filled in: the browser stops the submit, and the question still waits.
    await question.getByRole('button', { name: 'Submit' }).click();
    expect(await question.locator('input[name="name"]').evaluate((input: any) => input.validity.valueMissing)).toBe(true);
    expect(await question.getByRole('button', { name: 'Submit' }).isEnabled()).toBe(true);

    await question.getByLabel('Name').fill('Ada <img src=x onerror=alert(1)>');
    await question.getByLabel('Guests').fill('4');
    await question.getByLabel('Vegetarian menu').check();
    await question.getByLabel('Seating').selectOption({ label: 'outdoor' });
    await question.getByRole('button', { name: 'Submit' }).click();
    await completed();

    const booked = { name: 'Ada <img src=x onerror=alert(1)>', guests: 4, vegetarian: true, seating: 'outdoor' };
    expect(toolMessage('call_book')).toBe(`booked ${JSON.stringify(booked)}`);
    expect(await turn().locator('.blocks > .message.assistant').last().textContent()).toBe('Booked for Ada.');
  });

  it('asks again when the service refuses an answer that does not fit the form', async () => {
    await ask('Enter the code');
    const question = turn().locator('.approvals:not([hidden]) .pending-call.question');
    await question.waitFor(WAIT);

    // A browser that lets an empty required field through (here: the check taken off the field).
    await question.getByLabel('Code').evaluate((input: any) => input.removeAttribute('required'));
    await question.getByRole('button', { name: 'Submit' }).click();
    await turn().locator('.error').waitFor(WAIT);
    expect(await turn().locator('.error strong').textContent()).toBe('invalid_answer');
    expect(await turn().locator('.error').textContent()).toContain('missing required field "code"');

    const again = turn().locator('.approvals:not([hidden]) .pending-call.question:not(.approved)');
    await again.getByLabel('Code').fill('1234');
    await again.getByRole('button', { name: 'Submit' }).click();
    await completed();
    expect(toolMessage('call_code')).toBe('code 1234');
  });
});
