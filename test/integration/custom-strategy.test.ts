/**
 * The "Writing your own strategy" example (docs/strategies.md), as written: a turn strategy of
 * your own, composed of the same bounded loop (`runLoop`), passed to buildAgent, with the demo MCP
 * server over stdio and an OpenAI-compatible model (the scripted server over HTTP, checking each
 * request).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgent, createMemoryConversationStore, loadConfig, runLoop, type Agent, type TurnStrategy } from '../../lib/index.ts';
import { DEMO_SERVER } from '../support/configured-local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { completionBodies, toolAnswers, wireMessages, wireViolations } from '../support/wire-requests.ts';

// As in docs/strategies.md.
const CHECK = 'Check your answer against the question and the tool results above. Reply with the corrected answer only.';

/** Answers, then has the model check its answer once, within the turn's rounds and time. */
const checkedOnce: TurnStrategy = {
  async run(loop) {
    const first = await runLoop(loop);
    if (first.kind !== 'completed' || loop.draft.rounds >= loop.limits.maxRounds) return first;
    loop.draft.messages.push({ role: 'user', content: CHECK });
    return runLoop(loop);
  },
};

describe('a turn strategy of your own, passed to buildAgent', () => {
  let model: ScriptedOpenAIServer;
  let agent: Agent;
  let folder: string;

  beforeAll(async () => {
    model = await startScriptedOpenAIServer([
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('Shanghai: sunny, 30 °C.'),
      textReply('Shanghai: cloudy.'),
      toolCallsReply([{ id: 'call_beijing', name: 'getWeather', arguments: { city: '北京' } }]),
      toolCallsReply([{ id: 'call_guangzhou', name: 'getWeather', arguments: { city: '广州' } }]),
      textReply('北京和广州都多云。'),
    ]);
    folder = mkdtempSync(join(tmpdir(), 'strategy-'));
    writeFileSync(join(folder, 'agent.yml'), [
      `model: { name: gpt-4-turbo, baseURL: "${model.baseURL}", apiKey: sk-test, maxRetries: 0 }`,
      'maxRounds: 3',
      'mcpServers:',
      `  demo: { command: node, args: [${JSON.stringify(DEMO_SERVER)}] }`,
    ].join('\n'));
    const config = loadConfig({ path: join(folder, 'agent.yml'), environment: {} });
    agent = buildAgent(config, { store: createMemoryConversationStore(), strategy: checkedOnce, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  });

  afterAll(async () => {
    await agent?.close();
    await model?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('runs the loop, then the check on the same turn: the checked answer is the reply, every round counted', async () => {
    const turn = await agent.ask({ conversationId: 'checked', message: '上海天气怎么样？' });

    expect(turn).toMatchObject({ stopReason: 'completed', reply: 'Shanghai: cloudy.', rounds: 3, toolCalls: [{ name: 'getWeather', ok: true }] });
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(3);
    // The check request carries the question, the call and its result, the first answer, then the check.
    expect(toolAnswers(bodies[2]!)[0]).toMatchObject({ tool_call_id: 'call_weather' });
    expect(wireMessages(bodies[2]!).slice(-2)).toMatchObject([{ role: 'assistant', content: 'Shanghai: sunny, 30 °C.' }, { role: 'user', content: CHECK }]);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
  });

  it('keeps to the round limit like any turn: an answer in the last round is not checked', async () => {
    const turn = await agent.ask({ conversationId: 'bounded', message: '北京和广州呢？' });

    // maxRounds 3: two tool rounds and the answer spend them all, so no check is asked for.
    expect(turn).toMatchObject({ stopReason: 'completed', reply: '北京和广州都多云。', rounds: 3 });
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(6);
    expect(JSON.stringify(bodies[5])).not.toContain(CHECK);
  });
});
