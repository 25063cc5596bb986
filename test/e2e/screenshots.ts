/**
 * `npm run screenshots`: the pictures of the chat page in docs/chat-page.md (docs/chat-page*.png),
 * taken in Debian's Chromium from `npm start` with a scripted model, as the browser test runs it.
 * CJK text needs a CJK font in the browser (apt-get install fonts-wqy-microhei).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumMissing, launchChromium } from '../support/browser.ts';
import { startLocalServer, waitForOutput } from '../support/local-server.ts';
import { startScriptedOpenAIServer, streamedAsOpenAI, textReply, toolCallsReply } from '../support/scripted-openai-server.ts';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));
const WAIT = { timeout: 60_000 };
/** The page's document, in a function that runs in the browser (this program compiles without the DOM's types). */
declare const document: any;

const missing = chromiumMissing();
if (missing) {
  process.stderr.write(`Cannot take screenshots: ${missing}.\n`);
  process.exit(1);
}

const dataDir = mkdtempSync(join(tmpdir(), 'chat-page-screenshots-'));
const agentConfig = join(dataDir, 'agent.yml');
writeFileSync(agentConfig, [
  'mcpServers:',
  `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}], requireApproval: destructive }`,
].join('\n'));
const thinking = textReply('');
const withReasoning = { ...thinking, choices: [{ ...(thinking.choices as object[])[0], message: { role: 'assistant', content: '上海今天多云，1°C，湿度 72%。科技新闻有两条：国产大模型发布新版本，以及一家芯片公司宣布扩产。', reasoning_content: '用户问了两件事：天气和科技新闻。两个工具的结果都有了，直接回答。' } }] };
const model = await startScriptedOpenAIServer([
  toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }, { id: 'call_news', name: 'getNews', arguments: { categorys: [1] } }]),
  { ...streamedAsOpenAI(withReasoning, { pieceLength: 3 }), delayMs: 20 },
  toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]),
  textReply('订单 ORD20250514118567 已取消。'),
]);
const server = await startLocalServer({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LOCAL_DATA_DIR: join(dataDir, 'db'), AGENT_CONFIG: agentConfig });
const browser = await launchChromium({ width: 1280, height: 1400 });
try {
  await waitForOutput(server, /MCP server "demo" \(stdio\): connected/);
  const page = await browser.context.newPage();
  await page.goto(server.url + '/');
  const ask = async (question: string) => {
    await page.locator('#question').fill(question);
    await page.locator('#question').press('Enter');
  };
  await ask('上海天气怎么样？顺便看看科技新闻。');
  await page.waitForSelector('article.turn .turn-footer:not([hidden])', WAIT);
  await ask('取消订单 ORD20250514118567');
  await page.waitForSelector('article.turn >> nth=1 >> .approvals:not([hidden]) button.approve', WAIT);
  await page.locator('article.turn >> nth=0 >> details.reasoning').evaluate((details) => details.setAttribute('open', ''));
  await page.screenshot({ path: join(DOCS, 'chat-page.png') });

  await page.locator('article.turn >> nth=1').getByRole('button', { name: 'Approve' }).click();
  await page.waitForFunction(() => document.querySelectorAll('article.turn')[1]?.querySelector('.turn-footer .summary')?.textContent?.includes('completed'), undefined, WAIT);
  await page.locator('article.turn >> nth=1').getByRole('button', { name: 'Inspect' }).click();
  await page.waitForSelector('#inspector:not([hidden]) .round[data-round="2"]', WAIT);
  await page.locator('#inspector .round[data-round="2"]').evaluate((round) => round.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: join(DOCS, 'chat-page-inspector.png') });
  process.stdout.write(`Saved ${join(DOCS, 'chat-page.png')} and ${join(DOCS, 'chat-page-inspector.png')}\n`);
} finally {
  await browser.close();
  await server.stop();
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
}
