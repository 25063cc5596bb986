/**
 * `strategy: plan-execute` on Amazon Bedrock through `npm start`: the planner, an executor and the
 * summary each make Converse calls the stand-in checks as Bedrock would (alternating roles, every
 * toolUse answered, the id charset), and the turn ends with the summary's answer.
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

/** The plan-execute phase a request is for, told by its system prompt. */
function phaseOf(body: Record<string, unknown>): 'planner' | 'executor' | 'summary' {
  const system = ((body['system'] as Array<{ text?: string }> | undefined) ?? []).map((block) => block.text ?? '').join('\n');
  if (system.includes('## Planning')) return 'planner';
  if (system.includes('## Final answer')) return 'summary';
  if (system.includes('## Your task')) return 'executor';
  throw new Error(`a request of no plan-execute phase: ${system}`);
}

const textOf = (message: Message | undefined) => (message?.content ?? []).map((block) => (typeof block['text'] === 'string' ? block['text'] : '')).join(' ');
/** Converse demands every toolUse be answered in the next message: a call made is a call answered. */
const called = (messages: Message[], name: string) => messages.some((message) => message.content.some((block) => (block['toolUse'] as { name?: string } | undefined)?.name === name));

function modelOf(body: Record<string, unknown>): BedrockStep {
  // npm start's model-access check before it listens: one plain question.
  if (body['system'] === undefined) return converseText('OK');
  const messages = body['messages'] as Message[];
  const last = textOf(messages.at(-1));
  switch (phaseOf(body)) {
    case 'planner':
      if (last.includes('Progress of the plan')) return converseText('continue');
      return called(messages, 'planning') ? converseText('Planned.') : converseToolUse([{ toolUseId: 'plan-1', name: 'planning', input: { action: 'create', tasks: [{ title: 'Weather in Shanghai' }] } }]);
    case 'executor':
      return called(messages, 'getWeather') ? converseText('Shanghai: cloudy.') : converseToolUse([{ toolUseId: 'weather-1', name: 'getWeather', input: { city: '上海' } }]);
    case 'summary':
      return converseText('In Shanghai it is cloudy.');
  }
}

describe('npm start with LLM_PROVIDER=bedrock and strategy plan-execute', () => {
  let standIn: BedrockStandIn;
  let server: LocalServer;
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-e2e-bedrock-plan-'));
    const agentConfig = join(folder, 'agent.yml');
    writeFileSync(agentConfig, ['strategy: plan-execute', 'maxRounds: 20', 'mcpServers:', `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}] }`].join('\n'));
    standIn = await startBedrockStandIn(modelOf);
    server = await startLocalServer({ AGENT_CONFIG: agentConfig, LOCAL_DATA_DIR: join(folder, 'data'), ...standInEnvironment(standIn, MODEL) });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await standIn?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('plans, runs the task’s tool, and answers with the summary, every Converse request accepted', async () => {
    const turn = await postJson(`${server.url}/conversations/bedrock-planned/messages`, { message: 'What is the weather in Shanghai?' });
    const stored = await getJson(`${server.url}/conversations/bedrock-planned`);

    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ stopReason: 'completed', reply: 'In Shanghai it is cloudy.', toolCalls: [{ name: 'getWeather', arguments: { city: '上海' }, ok: true }] });
    const turnRequests = standIn.requests.filter((request) => request.body['system'] !== undefined);
    expect(turnRequests.map((request) => phaseOf(request.body))).toEqual(['planner', 'planner', 'executor', 'executor', 'summary']);
    expect(standIn.requests.map((request) => request.rejected)).toEqual(standIn.requests.map(() => undefined));
    expect(historyViolations(stored.body.turns[0].messages)).toEqual([]);
  });
});
