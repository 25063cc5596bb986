/**
 * `strategy: reflexion` with Self-Refine on Amazon Bedrock through `npm start`: the retry after a
 * reflection (a user message after a round's tool results), the critique and the revision (tool
 * rounds in a request that offers no tools) are Converse requests the stand-in checks as Bedrock
 * would (alternating roles, every toolUse answered, no toolUse without a toolConfig).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyViolations } from '../../lib/core/history.ts';
import { converseText, converseToolUse } from '../support/bedrock-stand-in-events.ts';
import { standInEnvironment, startBedrockStandIn, type BedrockStandIn, type BedrockStep } from '../support/bedrock-stand-in.ts';
import { DEMO_SERVER, getJson, postJson } from '../support/configured-local-server.ts';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';

const MODEL = 'eu.amazon.nova-pro-v1:0';

type Message = { role: string; content: Array<Record<string, unknown>> };

const textOf = (message: Message | undefined) => (message?.content ?? []).map((block) => (typeof block['text'] === 'string' ? block['text'] : '')).join(' ');
const used = (messages: Message[], name: string) => messages.some((message) => message.content.some((block) => (block['toolUse'] as { name?: string } | undefined)?.name === name));

const answeredWeather = (message: Message | undefined) => (message?.content ?? []).some((block) => (block['toolResult'] as { toolUseId?: string } | undefined)?.toolUseId === 'weather-1');

/** What a request is for, told by its last message. */
function purposeOf(body: Record<string, unknown>): string {
  const last = textOf((body['messages'] as Message[]).at(-1));
  if (last.includes('Review the answer you just gave')) return 'critique';
  if (last.includes('Write your answer again')) return 'revision';
  if (last.includes('Your attempt above did not succeed')) return 'reflection';
  return last.includes('[Reflection]') || used(body['messages'] as Message[], 'getWeather') ? 'retry' : 'trial';
}

function modelOf(body: Record<string, unknown>): BedrockStep {
  // npm start's model-access check before it listens: one plain question.
  if (body['system'] === undefined) return converseText('OK');
  const messages = body['messages'] as Message[];
  switch (purposeOf(body)) {
    case 'critique':
      return converseText(textOf(messages.at(-2)) === 'Shanghai: cloudy.' ? 'Say the temperature too.\nVERDICT: REVISE' : 'Good.\nVERDICT: OK');
    case 'revision':
      return converseText('Shanghai: cloudy, 21°C.');
    case 'reflection':
      return converseText('I read the news instead of the weather: call getWeather.');
    case 'retry':
      // The weather's result is in the last message once the call was made; before, the reflection is.
      return answeredWeather(messages.at(-1)) ? converseText('Shanghai: cloudy.') : converseToolUse([{ toolUseId: 'weather-1', name: 'getWeather', input: { city: '上海' } }]);
    default:
      return converseToolUse([{ toolUseId: `news-${messages.length}`, name: 'getNews', input: { categorys: [1] } }]);
  }
}

describe('npm start with LLM_PROVIDER=bedrock and strategy reflexion with Self-Refine', () => {
  let standIn: BedrockStandIn;
  let server: LocalServer;
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-e2e-bedrock-reflection-'));
    const agentConfig = join(folder, 'agent.yml');
    writeFileSync(agentConfig, ['strategy: reflexion', 'maxRounds: 10', 'reflection: { maxTrials: 2, trialRounds: 2, selfRefine: true }', 'mcpServers:', `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}] }`].join('\n'));
    standIn = await startBedrockStandIn(modelOf);
    server = await startLocalServer({ AGENT_CONFIG: agentConfig, LOCAL_DATA_DIR: join(folder, 'data'), ...standInEnvironment(standIn, MODEL) });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await standIn?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('retries after the reflection, critiques and revises, every Converse request accepted', async () => {
    const turn = await postJson(`${server.url}/conversations/bedrock-reflexion/messages`, { message: 'What is the weather in Shanghai?' });

    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ stopReason: 'completed', reply: 'Shanghai: cloudy, 21°C.' });
    const turnRequests = standIn.requests.filter((request) => request.body['system'] !== undefined);
    expect(turnRequests.map((request) => purposeOf(request.body))).toEqual(['trial', 'trial', 'reflection', 'retry', 'retry', 'critique', 'revision', 'critique']);
    expect(standIn.requests.map((request) => request.rejected)).toEqual(standIn.requests.map(() => undefined));
    // The strategy's own calls offer no tools: Converse gets no toolConfig, and the tool rounds as text.
    for (const request of turnRequests.filter((candidate) => ['critique', 'revision', 'reflection'].includes(purposeOf(candidate.body)))) expect(request.body['toolConfig']).toBeUndefined();
    const stored = await getJson(`${server.url}/conversations/bedrock-reflexion`);
    expect(historyViolations(stored.body.turns[0].messages)).toEqual([]);
  });
});
