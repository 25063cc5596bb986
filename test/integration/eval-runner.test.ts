/**
 * `npm run eval` (functions/eval.ts, in this process) through the real agent: buildAgent with an
 * OpenAI-compatible model (the scripted server, which records every request it gets) and the demo
 * MCP server over stdio. Each kind of check is shown failing once, with the reason the scorecard
 * gives, and the reports (JSON, JUnit XML, the side-by-side comparison) are read back.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEval } from '../../functions/eval.ts';
import { buildAgent } from '../../lib/build-agent.ts';
import { weatherFor } from '../../lib/demo/tools.ts';
import { loadConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { JUDGE_SYSTEM_PROMPT } from '../../lib/evals/judge.ts';
import { startLocalTable } from '../support/dynalite.ts';
import { DEMO_SERVER } from '../support/lambda-environment.ts';
import { PROJECT_ROOT } from '../support/mcp-servers.ts';
import { lastUserText, questionRouter } from '../support/question-router.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ChatRequestBody, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const weather = (city: string, id = 'call_w') => toolCallsReply([{ id, name: 'getWeather', arguments: { city } }]);

/** The agent's model: one question per case, each answered as the case needs. */
const AGENT_SCRIPT = {
  '上海天气怎么样？': [weather('上海'), textReply('上海今天晴。')],
  'Q-json-pass': [textReply('```json\n{"city": "上海", "temperatureC": 21}\n```')],
  'Q-conversation-1': [weather('北京'), textReply('北京多云。')],
  'Q-conversation-2': [textReply('还是北京：多云。')],
  'Q-called': [textReply('I would rather not look it up.')],
  'Q-not-called': [toolCallsReply([{ id: 'call_n', name: 'getNews', arguments: { categorys: [1] } }]), textReply('Some news.')],
  'Q-arguments': [weather('北京'), textReply('北京多云。')],
  'Q-stop-reason': [weather('上海', 'call_1'), weather('上海', 'call_2'), weather('上海', 'call_3')],
  'Q-text': [textReply('It is sunny.')],
  'Q-json': [textReply('{"city": "上海", "temperatureC": 31}')],
  'Q-unexpected-pause': [toolCallsReply([{ id: 'call_c', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]), textReply('Cancelled.')],
  'Q-never-paused': [weather('上海'), textReply('上海今天晴。')],
  'Q-approved': [toolCallsReply([{ id: 'call_a', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]), textReply('已取消订单 ORD20250514118567。')],
  'Q-judge-good': [weather('上海'), textReply('上海：晴，21°C，湿度 40%。')],
  'Q-judge-poor': [textReply('上海：晴。')],
  'Q-model-error': [{ status: 400, body: { error: { message: 'This model does not support tools.', type: 'invalid_request_error', param: null, code: null } } }],
};

const SUITE = `
name: scripted
cases:
  - name: passes every check
    question: 上海天气怎么样？
    expect:
      called: [getWeather]
      notCalled: [getNews, batchCancelOrdersByOrderNo]
      arguments: [{ tool: getWeather, match: { city: 上海 } }]
      stopReason: completed
      toolsSucceeded: true
      reply: { contains: 上海, notContains: 北京, matches: "晴" }
  - name: passes a JSON check
    question: Q-json-pass
    expect:
      json: { city: 上海, temperatureC: { $gte: 15, $lte: 25 } }
  - name: passes a conversation
    turns:
      - question: Q-conversation-1
        expect: { called: [getWeather] }
      - question: Q-conversation-2
        expect: { notCalled: [getWeather], reply: { contains: 北京 } }
  - name: fails called
    question: Q-called
    expect: { called: [getWeather] }
  - name: fails notCalled
    question: Q-not-called
    expect: { notCalled: [getNews] }
  - name: fails arguments
    question: Q-arguments
    expect:
      arguments: [{ tool: getWeather, match: { city: 上海 } }]
  - name: fails stopReason
    question: Q-stop-reason
    expect: { called: [getWeather] }
  - name: fails reply
    question: Q-text
    expect: { reply: { contains: 上海 } }
  - name: fails json
    question: Q-json
    expect:
      json: { temperatureC: { $lte: 25 } }
  - name: fails an unexpected pause
    question: Q-unexpected-pause
    expect: { stopReason: approval_required }
  - name: fails a pause that never came
    question: Q-never-paused
    approvals: [{ tool: batchCancelOrdersByOrderNo, decision: approve }]
  - name: passes an approval
    question: Q-approved
    approvals: [{ tool: batchCancelOrdersByOrderNo, decision: approve }]
    expect:
      arguments: [{ tool: batchCancelOrdersByOrderNo, match: { orderNos: [ORD20250514118567] } }]
      reply: { contains: ORD20250514118567 }
  - name: passes the judge
    question: Q-judge-good
    expect:
      judge: { criteria: "CRITERIA-GOOD: gives the condition, temperature and humidity" }
  - name: fails when the turn fails
    question: Q-model-error
  - name: fails the judge
    question: Q-judge-poor
    expect:
      judge: { criteria: "CRITERIA-POOR: gives the condition, temperature and humidity", threshold: 0.8 }
`;

interface JsonReport {
  passed: boolean;
  configurations: Array<{
    configuration: string;
    cases: Array<{
      name: string;
      passed: boolean;
      passRate: number;
      runs: Array<{ passed: boolean; reasons?: string[]; traceRoute?: string; turns: Array<{ conversationId: string; turn: number; judge?: { score: number }; failures: Array<{ kind: string; message: string }>; trace?: { rounds: unknown[] } }> }>;
    }>;
  }>;
}

describe('npm run eval, through the real agent', () => {
  let folder: string;
  let agentModel: ScriptedOpenAIServer;
  let judgeModel: ScriptedOpenAIServer;

  const agentYml = (name: string, baseURL: string, extra: string[] = []) => {
    const path = join(folder, name);
    writeFileSync(path, [
      'maxRounds: 3',
      `model: { name: gpt-4-turbo, baseURL: "${baseURL}", apiKey: sk-test }`,
      ...extra,
      'mcpServers:',
      `  demo: { command: node, args: [${JSON.stringify(DEMO_SERVER)}], requireApproval: destructive }`,
      '',
    ].join('\n'));
    return path;
  };

  const run = async (argv: string[]) => {
    const output = { stdout: '', stderr: '' };
    const status = await runEval(argv, { environment: { PATH: process.env['PATH'] ?? '' }, stdout: (text) => void (output.stdout += text), stderr: (text) => void (output.stderr += text), terminal: false });
    return { status, ...output };
  };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'eval-runner-'));
    agentModel = await startScriptedOpenAIServer(questionRouter(AGENT_SCRIPT));
    judgeModel = await startScriptedOpenAIServer((body) => {
      const request = lastUserText(body);
      return textReply(request.includes('CRITERIA-GOOD') ? '{"score": 0.9, "reason": "All three are given."}' : 'Grade: {"score": 0.4, "reason": "The temperature and humidity are missing."}');
    });
  });

  afterAll(async () => {
    await agentModel?.close();
    await judgeModel?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  describe('a suite with cases that pass and cases that fail for each kind of check', () => {
    let result: Awaited<ReturnType<typeof run>>;
    let report: JsonReport;
    let junit: string;
    const caseNamed = (name: string) => {
      const found = report.configurations[0]!.cases.find((each) => each.name === name);
      if (!found) throw new Error(`no case "${name}" in the report`);
      return found;
    };
    const failuresOf = (name: string) => caseNamed(name).runs[0]!.turns.flatMap((turn) => turn.failures);

    beforeAll(async () => {
      const config = agentYml('agent.yml', agentModel.baseURL);
      writeFileSync(join(folder, 'suite.yml'), `config: agent.yml\njudge:\n  model: { name: judge-model, baseURL: "${judgeModel.baseURL}", apiKey: sk-judge, temperature: 0 }\n${SUITE}`);
      result = await run([join(folder, 'suite.yml'), '--concurrency', '3', '--json', join(folder, 'out', 'report.json'), '--junit', join(folder, 'out', 'junit.xml')]);
      expect(config).toBeTruthy();
      report = JSON.parse(readFileSync(join(folder, 'out', 'report.json'), 'utf8')) as JsonReport;
      junit = readFileSync(join(folder, 'out', 'junit.xml'), 'utf8');
    });

    it('exits 1, and scores the passing cases as passed', () => {
      expect(result.status).toBe(1);
      expect(report.passed).toBe(false);
      for (const name of ['passes every check', 'passes a JSON check', 'passes a conversation', 'passes an approval', 'passes the judge']) {
        expect({ name, passed: caseNamed(name).passed, failures: failuresOf(name) }).toEqual({ name, passed: true, failures: [] });
      }
    });

    it.each([
      ['fails called', 'called', 'expected a call of getWeather; no tool was called'],
      ['fails notCalled', 'not_called', 'expected no call of getNews; it was called with {"categorys":[1]}'],
      ['fails arguments', 'arguments', 'a call of getWeather should match {"city":"上海"}: $.city: expected "上海", got "北京"'],
      ['fails stopReason', 'stop_reason', 'expected the turn to stop with completed, it stopped with max_rounds'],
      ['fails reply', 'reply', 'expected the answer to contain "上海"; the answer: "It is sunny."'],
      ['fails json', 'json', 'the answer\'s JSON does not match: $.temperatureC: expected a number <= 25, got 31'],
      ['fails an unexpected pause', 'approval', 'the turn paused for approval of batchCancelOrdersByOrderNo; the case gives no decision for it'],
      ['fails a pause that never came', 'approval', 'expected the turn to pause for approval of batchCancelOrdersByOrderNo (to approve it); it never did'],
      ['fails the judge', 'judge', 'the judge graded 0.4 (pass mark 0.8): The temperature and humidity are missing.'],
      ['fails when the turn fails', 'error', 'the turn failed: model_rejected_request: The model provider rejected the request (HTTP 400); its message is in the service\'s log. (400 This model does not support tools.)'],
    ])('%s: a [%s] failure that says why', (name, kind, message) => {
      expect(caseNamed(name).passed).toBe(false);
      expect(failuresOf(name)).toContainEqual({ kind, message: expect.stringContaining(message) });
    });

    it('prints a table with each failure and the route of its trace, and the totals', () => {
      expect(result.stdout).toMatch(/^PASS\s+passes every check\s+1\/1$/m);
      expect(result.stdout).toMatch(/^FAIL\s+fails arguments\s+0\/1$/m);
      const failure = caseNamed('fails arguments').runs[0]!;
      expect(result.stdout).toContain(`    [arguments] a call of getWeather should match {"city":"上海"}`);
      expect(result.stdout).toContain(`    trace: /conversations/${failure.turns[0]!.conversationId}/turns/1/trace`);
      expect(result.stdout).toContain('5/15 cases passed, 5/15 runs passed');

      // Without a terminal, progress is one plain line per run.
      expect(result.stderr.split('\n').filter((line) => /^(PASS|FAIL) .* \[\d+\/15\]/.test(line))).toHaveLength(15);
    });

    it("keeps a failing turn's trace: its route, and the rounds the model was sent", () => {
      const failure = caseNamed('fails stopReason').runs[0]!;
      const turn = failure.turns[0]!;
      expect(failure.traceRoute).toBe(`/conversations/${turn.conversationId}/turns/1/trace`);
      expect(turn.trace?.rounds).toHaveLength(3);
      expect(failure.reasons).toEqual(['[stop_reason] expected the turn to stop with completed, it stopped with max_rounds']);
    });

    it('sends the model what the agent sends for real: the system prompt, the demo tools, every call answered', () => {
      const bodies = agentModel.requests.map((request) => request.body as ChatRequestBody);
      expect(bodies.length).toBeGreaterThanOrEqual(20);
      for (const body of bodies) {
        expect(body.messages[0]).toMatchObject({ role: 'system' });
        expect((body.tools ?? []).map((tool) => (tool['function'] as { name: string }).name).sort()).toEqual(['batchCancelOrdersByOrderNo', 'foo', 'getNews', 'getWeather']);
        body.messages.forEach((message, index) => {
          const calls = (message['tool_calls'] ?? []) as Array<{ id: string }>;
          const answers = body.messages.slice(index + 1, index + 1 + calls.length).map((answer) => answer['tool_call_id']);
          expect(answers).toEqual(calls.map((call) => call.id));
        });
      }
      // The approved cancellation ran on the demo server, and the model saw its result.
      const afterApproval = bodies.find((body) => lastUserText(body) === 'Q-approved' && body.messages.at(-1)?.['role'] === 'tool');
      expect(JSON.parse(afterApproval!.messages.at(-1)!['content'] as string)).toEqual({ success: ['ORD20250514118567'], fail: [] });
      // The second turn of a conversation carries the first.
      const second = bodies.find((body) => lastUserText(body) === 'Q-conversation-2');
      expect(second!.messages.map((message) => message['role'])).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    });

    it("asks the judge with the question, the calls, the answer and the criteria, and records its grade", () => {
      const bodies = judgeModel.requests.map((request) => request.body as ChatRequestBody);
      expect(bodies).toHaveLength(2);
      const good = bodies.find((body) => lastUserText(body).includes('CRITERIA-GOOD'))!;
      expect(good).toMatchObject({ model: 'judge-model', temperature: 0, messages: [{ role: 'system', content: JUDGE_SYSTEM_PROMPT }, { role: 'user' }] });
      // The call with the result the demo server gave, as the agent's model saw it.
      expect(lastUserText(good)).toBe(`## Question\nQ-judge-good\n\n## Tool calls\n- getWeather({"city":"上海"}): succeeded\n  result: ${JSON.stringify(weatherFor('上海'))}\n\n## Answer\n上海：晴，21°C，湿度 40%。\n\n## Criteria\nCRITERIA-GOOD: gives the condition, temperature and humidity`);
      const poor = bodies.find((body) => lastUserText(body).includes('CRITERIA-POOR'))!;
      expect(lastUserText(poor)).toContain('## Tool calls\n(none)\n');
      expect(caseNamed('passes the judge').runs[0]!.turns[0]!.judge).toMatchObject({ score: 0.9 });
    });

    it('writes JUnit XML that parses, with one failure per failing case, its reasons and trace', () => {
      expect(XMLValidator.validate(junit)).toBe(true);
      const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit) as { testsuites: { tests: string; failures: string; testsuite: { testcase: Array<{ name: string; failure?: { message: string; '#text': string } }> } } };
      expect(parsed.testsuites).toMatchObject({ tests: '15', failures: '10' });
      const cases = parsed.testsuites.testsuite.testcase;
      expect(cases.filter((each) => each.failure)).toHaveLength(10);
      const json = cases.find((each) => each.name === 'fails json')!;
      expect(json.failure!.message).toContain('0/1 runs passed');
      expect(json.failure!['#text']).toContain('[json] the answer\'s JSON does not match: $.temperatureC: expected a number <= 25, got 31');
      expect(json.failure!['#text']).toMatch(/trace: \/conversations\/[A-Za-z0-9_-]+\/turns\/1\/trace/);
    });
  });

  it('runs each case as often as asked and scores it by its pass rate', async () => {
    // Every other run of each question is answered wrongly.
    const alternating = (right: string) => (run: number) => [run % 2 === 0 ? weather('上海') : weather('北京'), textReply(right)];
    const model = await startScriptedOpenAIServer(questionRouter({ 'Q-half': alternating('ok'), 'Q-most': alternating('ok') }));
    try {
      agentYml('repeat.yml', model.baseURL);
      writeFileSync(join(folder, 'repeat-suite.yml'), [
        'config: repeat.yml',
        'passRate: 0.75',
        'cases:',
        '  - { name: half is enough, question: Q-half, passRate: 0.5, expect: { arguments: [{ tool: getWeather, match: { city: 上海 } }] } }',
        '  - { name: needs three in four, question: Q-most, expect: { arguments: [{ tool: getWeather, match: { city: 上海 } }] } }',
      ].join('\n'));
      const result = await run([join(folder, 'repeat-suite.yml'), '--repeat', '4', '--concurrency', '1', '--json', join(folder, 'repeat.json')]);
      expect(result.status).toBe(1);
      expect(result.stdout).toMatch(/^PASS\s+half is enough\s+2\/4 50% \(needs 50%\)$/m);
      expect(result.stdout).toMatch(/^FAIL\s+needs three in four\s+2\/4 50% \(needs 75%\)$/m);
      expect(result.stdout).toContain('1/2 cases passed, 4/8 runs passed');
      // Each run: a call (188 prompt + 16 completion tokens, as scripted) and an answer (192 + 171).
      expect(result.stdout).toMatch(/^model tokens: 3,040 prompt, 1,496 completion$/m);
      const report = JSON.parse(readFileSync(join(folder, 'repeat.json'), 'utf8')) as JsonReport;
      expect(report.configurations[0]!.cases.map((each) => [each.name, each.passRate, each.runs.map((one) => one.passed)])).toEqual([
        ['half is enough', 0.5, [true, false, true, false]],
        ['needs three in four', 0.5, [true, false, true, false]],
      ]);
      expect(model.requests).toHaveLength(16);
    } finally {
      await model.close();
    }
  });

  it('compares two configurations on the same suite, side by side', async () => {
    const right = await startScriptedOpenAIServer(questionRouter({ 'Q-compare': [weather('上海'), textReply('上海今天晴。')], 'Q-same': [textReply('hello')] }));
    const wrong = await startScriptedOpenAIServer(questionRouter({ 'Q-compare': [weather('北京'), textReply('北京多云。')], 'Q-same': [textReply('hello')] }));
    try {
      const first = agentYml('right.yml', right.baseURL);
      const second = agentYml('wrong.yml', wrong.baseURL, ['systemPrompt: "Another prompt."']);
      writeFileSync(join(folder, 'compare-suite.yml'), [
        'name: compared',
        'cases:',
        '  - { name: weather in Shanghai, question: Q-compare, expect: { arguments: [{ tool: getWeather, match: { city: 上海 } }] } }',
        '  - { name: greets, question: Q-same, expect: { reply: { equals: hello } } }',
      ].join('\n'));
      const result = await run([join(folder, 'compare-suite.yml'), '--config', first, '--compare', second, '--junit', join(folder, 'compare.xml')]);
      expect(result.status).toBe(1);
      expect(result.stdout).toMatch(/compared: A = .*right\.yml, model openai\/gpt-4-turbo/);
      expect(result.stdout).toMatch(/B = .*wrong\.yml, model openai\/gpt-4-turbo/);
      expect(result.stdout).toMatch(/^weather in Shanghai\s+PASS 1\/1\s+FAIL 0\/1\s+worse in B$/m);
      expect(result.stdout).toMatch(/^greets\s+PASS 1\/1\s+PASS 1\/1\s*$/m);
      expect(result.stdout).toContain('1 case(s) changed: 0 better in B, 1 worse in B.');
      expect(result.stdout).toContain('weather in Shanghai: worse in B (B: [arguments] a call of getWeather should match {"city":"上海"}: $.city: expected "上海", got "北京")');
      // Each configuration ran with its own prompt.
      expect((wrong.requests[0]!.body as ChatRequestBody).messages[0]).toMatchObject({ role: 'system', content: 'Another prompt.' });
      // Progress says which side runs.
      expect(result.stderr).toMatch(/^A: PASS/m);
      expect(result.stderr).toMatch(/^B: FAIL weather in Shanghai/m);
      const junit = readFileSync(join(folder, 'compare.xml'), 'utf8');
      expect(XMLValidator.validate(junit)).toBe(true);
      expect(junit.match(/<testsuite /g)).toHaveLength(2);
    } finally {
      await right.close();
      await wrong.close();
    }
  });

  it('exits 2 before running anything when the model is not configured, saying what to set', async () => {
    const config = join(folder, 'no-key.yml');
    writeFileSync(config, 'model: { name: gpt-4o }\n');
    writeFileSync(join(folder, 'no-key-suite.yml'), 'cases: [{ name: a, question: q }]\n');
    const result = await run([join(folder, 'no-key-suite.yml'), '--config', config]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^eval: the model of .*no-key\.yml is not configured: .*OPENAI_API_KEY/);
    expect(result.stdout).toBe('');
  });

  it('exits 2 for a --model the configuration would not run, rather than running the demo model under its name', async () => {
    const result = await run([join(PROJECT_ROOT, 'evals/demo.yml'), '--model', 'gpt-4o-mini']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^eval: --model gpt-4o-mini: .*demo-agent\.yml uses the demo provider, which runs "demo" whatever the name; add --provider openai \(or bedrock\)/);
  });

  it('keeps the conversations in a data folder when asked, where the trace of a failing turn can be read afterwards', async () => {
    const model = await startScriptedOpenAIServer(questionRouter({ 'Q-kept': [weather('北京'), textReply('北京多云。')] }));
    const dataDir = join(folder, 'data');
    try {
      const config = agentYml('kept.yml', model.baseURL);
      writeFileSync(join(folder, 'kept-suite.yml'), 'cases: [{ name: kept, question: Q-kept, expect: { arguments: [{ tool: getWeather, match: { city: 上海 } }] } }]\n');
      const result = await run([join(folder, 'kept-suite.yml'), '--config', config, '--data-dir', dataDir]);
      expect(result.status).toBe(1);
      expect(result.stdout).toContain(`Conversations and their traces are kept in an embedded DynamoDB (dynalite) under ${join(dataDir, 'dynalite')}: LOCAL_DATA_DIR=${dataDir} npm start serves them.`);
      const [, conversationId] = /trace: \/conversations\/([A-Za-z0-9_-]+)\/turns\/1\/trace/.exec(result.stdout) ?? [];

      // As npm start would open it: dynalite on the same folder, the agent on its table.
      const table = await startLocalTable({ path: join(dataDir, 'dynalite'), tableName: 'mcp-agent-conversations' });
      const agent = buildAgent(loadConfig({ path: config, environment: {} }), { documentClient: table.documentClient, logger: silentLogger });
      try {
        const trace = await agent.getTurnTrace({ conversationId: conversationId! }, 1);
        expect(trace.rounds).toHaveLength(2);
        expect(trace.toolCalls).toMatchObject([{ name: 'getWeather' }]);
      } finally {
        await agent.close();
        await table.close();
      }
    } finally {
      await model.close();
    }
  });
});
