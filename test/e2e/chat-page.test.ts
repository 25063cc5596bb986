/**
 * The chat page in a real headless browser (Debian's Chromium through playwright-core), served by
 * `npm start` as a separate process, with a model that streams its replies over real HTTP: a
 * question whose answer is watched as it is written, its tool call and result, a call approved and
 * one declined in the page, the turn inspector, and a conversation reopened from the list and after a reload.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../support/browser.ts';
import { startLocalServer, waitForOutput, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, streamedAsOpenAI, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));
const ANSWER = '上海今天多云，气温 1°C，湿度 72%。明天转晴，适合出门。';
const WAIT = { timeout: 60_000 };
/**
 * The page's document, in the functions below that run in the browser: this program compiles
 * without the DOM's types (the page forbids evaluating strings, so they stay functions).
 */
declare const document: any;
const IN_PAGE = {
  showsTools: () => document.getElementById('status')?.textContent?.includes('4 tools'),
  // The answer has begun, and the turn has not ended: its text can only have come from deltas.
  answerBegunWhileRunning: () => {
    const article = document.querySelector('article.turn');
    const answer = article?.querySelector('.blocks > .message.assistant');
    return (answer?.textContent?.length ?? 0) > 0 && article.classList.contains('running') && article.querySelector('.turn-footer').hidden;
  },
  secondTurnCompleted: () => document.querySelectorAll('article.turn')[1]?.querySelector('.turn-footer .summary')?.textContent?.includes('completed'),
  twoTurns: () => document.querySelectorAll('article.turn').length === 2,
  firstTurnCompleted: () => document.querySelector('article.turn .turn-footer .summary')?.textContent?.includes('completed'),
};

const missing = chromiumMissing();
const title = 'the chat page in Chromium, against npm start';
// The default reporter names a skipped file but not why: say it where it will be seen.
if (missing) console.warn(`Chat page browser tests skipped: ${missing}.`);

describe.skipIf(missing !== undefined)(missing ? `${title} (skipped: ${missing})` : title, () => {
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let browser: Browser;
  let page: Page;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-e2e-chat-page-'));
    const agentConfig = join(dataDir, 'agent.yml');
    writeFileSync(agentConfig, [
      'model: { maxRetries: 0 }',
      'todoList: true',
      'mcpServers:',
      `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}], requireApproval: destructive }`,
    ].join('\n'));
    model = await startScriptedOpenAIServer([
      // Turn 1: a tool round, then an answer written slowly, two characters an event.
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      { ...streamedAsOpenAI(textReply(ANSWER), { pieceLength: 2 }), delayMs: 150 },
      // Turn 2: a call that needs approval, then the answer once it ran.
      toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]),
      textReply('订单 ORD20250514118567 已取消。'),
      // A second conversation.
      textReply('你好！有什么可以帮你？'),
      // A todo list.
      toolCallsReply([{ id: 'call_todos', name: 'write_todos', arguments: { todos: [{ content: '查上海天气', status: 'completed' }, { content: '取消订单 ORD1', status: 'in_progress' }] } }]),
      textReply('天气查好了，正在取消订单。'),
      // A call declined in the page.
      toolCallsReply([{ id: 'call_declined', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118569'] } }]),
      textReply('好的，订单 ORD20250514118569 没有取消。'),
    ]);
    server = await startLocalServer({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LOCAL_DATA_DIR: join(dataDir, 'db'), AGENT_CONFIG: agentConfig });
    await waitForOutput(server, /MCP server "demo" \(stdio\): connected/);
    browser = await launchChromium();
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const turn = (number: number) => page.locator(`article.turn >> nth=${number - 1}`);
  const ask = async (question: string) => {
    await page.locator('#question').fill(question);
    await page.locator('#question').press('Enter');
  };

  it('is served at GET / with its modules, and shows the model', async () => {
    const response = await page.goto(server.url + '/');
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await page.waitForFunction(IN_PAGE.showsTools, undefined, WAIT);
    expect(await page.locator('#status').textContent()).toMatch(/^gpt-4o-mini · 4 tools$/);
  });

  it('streams the answer in as it is written, after the tool call and its result', async () => {
    await ask('上海天气怎么样？');

    await page.waitForFunction(IN_PAGE.answerBegunWhileRunning, undefined, { ...WAIT, polling: 20 });
    const partial = await turn(1).locator('.blocks > .message.assistant').first().textContent();
    await page.waitForSelector('article.turn .turn-footer:not([hidden])', WAIT);
    const final = await turn(1).locator('.blocks > .message.assistant').first().textContent();

    expect(partial!.length).toBeGreaterThan(0);
    expect(partial!.length).toBeLessThan(final!.length);
    expect(final).toBe(ANSWER);
    expect(ANSWER.startsWith(partial!)).toBe(true);
    const call = turn(1).locator('.tool-call');
    expect(await call.locator('.tool-name').textContent()).toBe('getWeather');
    expect(JSON.parse((await call.locator('.arguments').textContent())!)).toEqual({ city: '上海' });
    expect(await call.locator('.status').textContent()).toMatch(/^ok · \d+ ms$/);
    expect(await call.locator('.result-text').textContent()).toContain('上海');
    expect(await turn(1).locator('.turn-footer .summary').textContent()).toMatch(/^Turn 1 · completed · 2 rounds · \d+ \+ \d+ tokens$/);
  });

  it('keeps talking in the same conversation, and runs a call once it is approved in the page', async () => {
    await ask('取消订单 ORD20250514118567');
    await page.waitForSelector('article.turn >> nth=1 >> .approvals:not([hidden]) button.approve', WAIT);
    expect(await turn(2).locator('.pending-call .tool-name').textContent()).toBe('batchCancelOrdersByOrderNo');
    expect(await turn(2).locator('.turn-footer .summary').textContent()).toMatch(/approval_required/);

    await turn(2).getByRole('button', { name: 'Approve' }).click();
    await page.waitForFunction(IN_PAGE.secondTurnCompleted, undefined, WAIT);

    expect(await turn(2).locator('.approvals').isHidden()).toBe(true);
    expect(await turn(2).locator('.tool-call .status').textContent()).toMatch(/^ok · /);
    expect(await turn(2).locator('.blocks > .message.assistant').last().textContent()).toBe('订单 ORD20250514118567 已取消。');
    // The same conversation: the model saw the first turn with the second question.
    const asked = model.requests.filter((request) => request.path === '/v1/chat/completions').map((request) => JSON.stringify(request.body));
    expect(asked[2]).toContain('上海天气怎么样？');
    expect(asked[3]).toContain('"tool_call_id":"call_cancel"');
  });

  it('inspects a turn: each round\'s request messages with their tool_call_id, the tools, and the response', async () => {
    await turn(2).getByRole('button', { name: 'Inspect' }).click();
    await page.waitForSelector('#inspector:not([hidden]) .round[data-round="2"]', WAIT);

    const rounds = page.locator('#inspector .round');
    expect(await rounds.count()).toBe(2);
    const second = page.locator('#inspector .round[data-round="2"]');
    // The history (turn 1, with its own tool message), the question, the call, its result.
    const toolMessages = second.locator('.request .trace-message.tool');
    expect(await toolMessages.count()).toBe(2);
    expect(await toolMessages.first().locator('.field').first().textContent()).toBe('tool_call_id call_weather');
    const toolMessage = toolMessages.last();
    expect(await toolMessage.locator('.field').first().textContent()).toBe('tool_call_id call_cancel');
    expect(await toolMessage.locator('.content').textContent()).toContain('ORD20250514118567');
    expect(await second.locator('.request .trace-message.user').last().locator('.content').textContent()).toBe('取消订单 ORD20250514118567');
    expect(await second.locator('.request .tools summary').textContent()).toContain('batchCancelOrdersByOrderNo');
    expect(await second.locator('.response .content').textContent()).toBe('订单 ORD20250514118567 已取消。');
    expect(await second.locator('h3 .timing').textContent()).toMatch(/\d+ ms.*192 prompt \+ 171 completion tokens/);
    const first = page.locator('#inspector .round[data-round="1"]');
    expect(await first.locator('.response .wire-call .field').first().textContent()).toBe('id call_cancel');
    await page.locator('#close-inspector').click();
    expect(await page.locator('#inspector').isHidden()).toBe(true);
  });

  it('starts a new conversation, and reopens a stored one from the list and after a reload', async () => {
    const firstId = decodeURIComponent(new URL(page.url()).hash.slice(1));
    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(await page.locator('article.turn').count()).toBe(0);
    await ask('你好');
    await page.waitForSelector('article.turn .turn-footer:not([hidden])', WAIT);
    expect(decodeURIComponent(new URL(page.url()).hash.slice(1))).not.toBe(firstId);
    expect(await page.locator('#conversations li').count()).toBe(2);

    await page.locator('#conversations button', { hasText: '上海天气怎么样？' }).click();
    await page.waitForFunction(IN_PAGE.twoTurns, undefined, WAIT);
    expect(await turn(1).locator('.tool-call .tool-name').textContent()).toBe('getWeather');
    expect(await turn(2).locator('.blocks > .message.assistant').last().textContent()).toBe('订单 ORD20250514118567 已取消。');

    await page.reload();
    await page.waitForFunction(IN_PAGE.twoTurns, undefined, WAIT);
    expect(await turn(2).locator('.tool-call .result-text').textContent()).toContain('ORD20250514118567');
    await turn(1).getByRole('button', { name: 'Inspect' }).click();
    await page.waitForSelector('#inspector:not([hidden]) .round[data-round="2"]', WAIT);
    expect(await page.locator('#inspector .round[data-round="1"] .response .wire-call .field').first().textContent()).toBe('id call_weather');
  });

  it('shows the todo list the model keeps, as it changes', async () => {
    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(await page.locator('#progress').isHidden()).toBe(true);
    await ask('查天气再取消订单');
    await page.waitForSelector('#progress:not([hidden]) .todos li', WAIT);

    expect(await page.locator('#progress .todos li').allTextContents()).toEqual(['● 查上海天气', '◐ 取消订单 ORD1']);
    expect(await page.locator('#progress .todos li').evaluateAll((items) => items.map((item) => item.className))).toEqual(['completed', 'in_progress']);
    // The page ignores "New conversation" while a turn runs: the next test starts once this one ended.
    await page.waitForFunction(IN_PAGE.firstTurnCompleted, undefined, WAIT);
  });

  it('declines a call in the page: the model is told, and the turn goes on without running it', async () => {
    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask('取消订单 ORD20250514118569');
    await page.waitForSelector('article.turn .approvals:not([hidden]) button.decline', WAIT);

    await turn(1).getByRole('button', { name: 'Decline' }).click();
    await page.waitForFunction(IN_PAGE.firstTurnCompleted, undefined, WAIT);

    expect(await turn(1).locator('.approvals').isHidden()).toBe(true);
    expect(await turn(1).locator('.blocks > .message.assistant').last().textContent()).toBe('好的，订单 ORD20250514118569 没有取消。');
    const last = model.requests.filter((request) => request.path === '/v1/chat/completions').at(-1)!.body as { messages: Array<{ role: string; tool_call_id?: string; content?: string }> };
    const answer = last.messages.find((message) => message.role === 'tool' && message.tool_call_id === 'call_declined')!;
    expect(answer.content).toMatch(/declined/);
    expect(answer.content).toContain('declined in the chat page');
  });
});
