import { afterEach, describe, expect, it, vi } from 'vitest';
import { runLoop, type LoopInput, type LoopLimits } from '../../lib/agent/loop/run-loop.ts';
import type { AgentExtension } from '../../lib/agent/extension-api/extension.ts';
import { createExtensionRunner } from '../../lib/agent/extension-api/extension-runner.ts';
import type { OfferedTool } from '../../lib/agent/loop/tool-policy.ts';
import { newDraft, type TurnDraft } from '../../lib/agent/turn/turn-draft.ts';
import { ModelError, StoreError } from '../../lib/core/errors.ts';
import { findOpenRound, historyViolations } from '../../lib/core/history.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';
import type { ToolDefinition, ToolGateway } from '../../lib/core/ports/tools.ts';
import { createFakeGateway, waitForAbort } from '../../lib/testing/fake-gateway.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { batchCancelOrdersByOrderNo, getWeather } from '../support/original-tools.ts';

const weatherTool = { definition: getWeather, run: (args: Record<string, unknown>) => ({ ok: true, text: `{"city":"${String(args.city)}","condition":"晴"}` }) };
const cancelTool = { definition: batchCancelOrdersByOrderNo, run: () => ({ ok: true, text: '{"success":["ORD1"]}' }) };

/** As tool control offers them: getWeather read-only, the cancel tool not; none needs approval unless said. */
const offered = (tool: ToolDefinition, extra: Partial<OfferedTool> = {}): OfferedTool => ({ ...tool, server: 'fake', needsApproval: false, readOnly: tool.name === 'getWeather', ...extra });

const LIMITS: LoopLimits = {
  maxRounds: 5,
  modelTimeoutMs: 30_000,
  toolTimeoutMs: 5_000,
  maxOutputChars: 10_000,
  maxCallsPerRound: 16,
  maxCallsPerTurn: 64,
  maxConcurrentCalls: 8,
  maxTurnOutputChars: 64_000,
  reserveMs: 0,
};

type SetupOverrides = Partial<Omit<LoopInput, 'limits' | 'hooks'>> & { limits?: Partial<LoopLimits>; extensions?: AgentExtension[] };

function setup(script: ScriptedStep[], overrides: SetupOverrides = {}, gateway: ToolGateway = createFakeGateway([weatherTool, cancelTool])) {
  const model = createScriptedModel(script);
  const draft: TurnDraft = overrides.draft ?? newDraft('What is the weather in Shanghai?');
  const tools = overrides.tools ?? [offered(getWeather), offered(batchCancelOrdersByOrderNo)];
  const hooks = createExtensionRunner({ extensions: overrides.extensions ?? [], mcpTools: tools, gateway, model, conversationId: 'c-1', turn: 1, state: {} });
  const input: LoopInput = {
    model,
    systemPrompt: 'system prompt',
    history: [],
    deadlineAt: Date.now() + 60_000,
    ...overrides,
    tools: hooks.tools,
    hooks,
    draft,
    limits: { ...LIMITS, ...overrides.limits },
  };
  /** The outcome with the draft's contents, as one object to assert on. */
  const run = async () => {
    const outcome = await runLoop(input);
    const stopReason = outcome.kind === 'stopped' ? outcome.reason : outcome.kind === 'failed' ? 'error' : outcome.kind === 'paused' ? 'approval_required' : 'completed';
    return {
      stopReason,
      rounds: draft.rounds,
      messages: draft.messages,
      toolCalls: draft.toolCalls,
      usage: draft.usage,
      ...(outcome.kind === 'completed' ? { reply: outcome.reply } : {}),
      ...(outcome.kind === 'failed' ? { cause: outcome.cause } : {}),
      ...(outcome.kind === 'paused' ? { pending: outcome.pending } : {}),
    };
  };
  return { model, gateway, draft, run };
}

const toolMessages = (messages: HistoryMessage[]) => messages.filter((message) => message.role === 'tool');

afterEach(() => {
  vi.useRealTimers();
});

describe('runLoop', () => {
  it('completes in one round when the model answers with text', async () => {
    // Prepare
    const { model, run } = setup([textReply('Hello')]);
    // Act
    const outcome = await run();
    // Assess
    expect(outcome).toMatchObject({ stopReason: 'completed', rounds: 1, reply: 'Hello', toolCalls: [] });
    expect(outcome.messages).toEqual([
      { role: 'user', content: 'What is the weather in Shanghai?' },
      { role: 'assistant', content: 'Hello', toolCalls: [] },
    ]);
    expect(model.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'system prompt' });
    expect(model.requests[0]!.tools.map((tool) => tool.name)).toEqual(['getWeather', 'batchCancelOrdersByOrderNo']);
  });

  it('sends the system prompt, then the history, then the question', async () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'earlier question' },
      { role: 'assistant', content: 'earlier answer', toolCalls: [] },
    ];
    const { model, run } = setup([textReply('ok')], { history });
    await run();
    expect(model.requests[0]!.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(model.requests[0]!.messages[3]).toEqual({ role: 'user', content: 'What is the weather in Shanghai?' });
  });

  it('feeds each tool result back with its tool_call_id and counts each model reply as a round', async () => {
    const { model, run } = setup([
      toolCallsReply([{ id: 'call_1', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('It is sunny.', { promptTokens: 20, completionTokens: 7 }),
    ]);
    const outcome = await run();
    expect(outcome).toMatchObject({ stopReason: 'completed', rounds: 2, reply: 'It is sunny.', usage: { promptTokens: 30, completionTokens: 12 } });
    const second = model.requests[1]!.messages;
    expect(second.slice(2)).toEqual([
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'getWeather', arguments: '{"city":"上海"}' }] },
      { role: 'tool', toolCallId: 'call_1', name: 'getWeather', content: '{"city":"上海","condition":"晴"}' },
    ]);
    expect(outcome.toolCalls).toEqual([{ id: 'call_1', name: 'getWeather', arguments: { city: '上海' }, ok: true, durationMs: expect.any(Number) }]);
  });

  it('runs the calls of one reply concurrently and keeps the results in the calls\' order', async () => {
    // The first call can only finish after the second has started: sequential execution would hang.
    let releaseFirst!: () => void;
    const secondStarted = new Promise<void>((resolve) => (releaseFirst = resolve));
    const gateway = createFakeGateway([
      { definition: getWeather, run: async () => { await secondStarted; return { ok: true, text: 'weather' }; } },
      { definition: batchCancelOrdersByOrderNo, run: () => { releaseFirst(); return { ok: true, text: 'cancelled' }; } },
    ]);
    const { run } = setup([
      toolCallsReply([
        { id: 'call_a', name: 'getWeather', arguments: { city: '上海' } },
        { id: 'call_b', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } },
      ]),
      textReply('done'),
    ], {}, gateway);
    const outcome = await run();
    expect(toolMessages(outcome.messages).map((message) => [message.toolCallId, message.content])).toEqual([
      ['call_a', 'weather'],
      ['call_b', 'cancelled'],
    ]);
  });

  it.each([
    ['an unknown tool', { name: 'getNews', arguments: '{}' }, /no tool named "getNews"\. Available tools: getWeather, batchCancelOrdersByOrderNo/],
    ['arguments that are not JSON', { name: 'getWeather', arguments: '{"city": 上海' }, /arguments for "getWeather" are not valid JSON/],
    ['arguments that are not an object', { name: 'getWeather', arguments: '["上海"]' }, /must be a JSON object/],
    ['arguments that fail the schema', { name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNo":"ORD20250514118566"}' }, /missing required field "orderNos"; unexpected field "orderNo"; expected fields: orderNos/],
    ['a wrongly typed field', { name: 'getWeather', arguments: '{"city": 42}' }, /"city" must be string/],
  ])('answers %s with a tool error the model can act on, without calling the server', async (_, call, expected) => {
    const gateway = createFakeGateway([weatherTool, cancelTool]);
    const { model, run } = setup([toolCallsReply([{ id: 'call_x', ...call }]), textReply('sorry')], {}, gateway);
    const outcome = await run();
    expect(outcome.stopReason).toBe('completed');
    const [message] = toolMessages(outcome.messages);
    expect(message).toMatchObject({ toolCallId: 'call_x', name: call.name });
    expect(message!.content).toMatch(expected);
    expect(gateway.calls).toEqual([]);
    expect(outcome.toolCalls[0]!.ok).toBe(false);
    expect(model.requests[1]!.messages.at(-1)).toEqual(message);
  });

  it('reports an MCP result with isError as a failed call and goes on', async () => {
    const gateway = createFakeGateway([{ definition: getWeather, run: () => ({ ok: false, text: 'city not found' }) }]);
    const { run } = setup([toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: 'Atlantis' } }]), textReply('no such city')], { tools: [offered(getWeather)] }, gateway);
    const outcome = await run();
    expect(toolMessages(outcome.messages)[0]!.content).toBe('Error: city not found');
    expect(outcome.toolCalls[0]!.ok).toBe(false);
    expect(outcome.stopReason).toBe('completed');
  });

  it('cancels a call that exceeds the tool timeout and tells the model', async () => {
    let received: AbortSignal | undefined;
    const gateway = createFakeGateway([{ definition: getWeather, run: (_, signal) => { received = signal; return waitForAbort(signal); } }]);
    const { run } = setup([toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: '上海' } }]), textReply('timed out')], { tools: [offered(getWeather)], limits: { toolTimeoutMs: 50 } }, gateway);
    const outcome = await run();
    expect(received?.aborted).toBe(true);
    expect(toolMessages(outcome.messages)[0]!.content).toMatch(/did not answer within 50 ms and was cancelled/);
    expect(outcome.stopReason).toBe('completed');
  });

  it('reports a dropped connection as a failed call', async () => {
    const gateway = createFakeGateway([{ definition: getWeather, run: () => { throw new Error('Connection closed'); } }]);
    const { run } = setup([toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: '上海' } }]), textReply('ok')], { tools: [offered(getWeather)] }, gateway);
    const outcome = await run();
    expect(toolMessages(outcome.messages)[0]!.content).toMatch(/calling "getWeather" failed: Connection closed/);
  });

  it('truncates tool output to the configured cap', async () => {
    const gateway = createFakeGateway([{ definition: getWeather, run: () => ({ ok: true, text: 'x'.repeat(500) }) }]);
    const { run } = setup([toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: 'a' } }]), textReply('ok')], { tools: [offered(getWeather)], limits: { maxOutputChars: 100 } }, gateway);
    const outcome = await run();
    const content = toolMessages(outcome.messages)[0]!.content;
    expect(content.startsWith('x'.repeat(100) + '\n…[truncated: the tool returned 500 characters, 100 are shown]')).toBe(true);
  });

  it('stops with max_rounds while the model still asks for tools, answering the last calls without running them', async () => {
    const gateway = createFakeGateway([weatherTool, cancelTool]);
    const again = (round: number) => toolCallsReply([{ id: `call_${round}`, name: 'getWeather', arguments: { city: `city${round}` } }]);
    const { run } = setup([again(1), again(2), again(3)], { limits: { maxRounds: 3 } }, gateway);
    const outcome = await run();
    expect(outcome).toMatchObject({ stopReason: 'max_rounds', rounds: 3 });
    expect(gateway.calls).toHaveLength(2);
    expect(outcome.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_3', content: expect.stringMatching(/Not executed: the turn reached its limit of 3/) });
    expect(historyViolations(outcome.messages)).toEqual([]);
  });

  it('stops with deadline before calling the model when no time is left', async () => {
    const { model, run } = setup([textReply('never')], { deadlineAt: Date.now() - 1 });
    const outcome = await run();
    expect(outcome).toMatchObject({ stopReason: 'deadline', rounds: 0 });
    expect(model.requests).toHaveLength(0);
    expect(outcome.messages).toEqual([{ role: 'user', content: 'What is the weather in Shanghai?' }]);
  });

  it('stops with deadline when the turn runs out of time during a tool call, keeping the invariant', async () => {
    // Prepare: a fake clock and timers, so the deadline passes while the tool runs, however slow the machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let toolStarted!: () => void;
    const started = new Promise<void>((resolve) => (toolStarted = resolve));
    const gateway = createFakeGateway([{ definition: getWeather, run: (_, signal) => (toolStarted(), waitForAbort(signal)) }]);
    const { model, run } = setup(
      [toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: '上海' } }]), textReply('never sent')],
      { tools: [offered(getWeather)], deadlineAt: Date.now() + 60_000, limits: { toolTimeoutMs: 600_000 } },
      gateway,
    );

    // Act: the turn's time passes once the tool is running.
    const running = run();
    await started;
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await running;

    // Assess
    expect(outcome).toMatchObject({ stopReason: 'deadline', rounds: 1 });
    expect(model.requests).toHaveLength(1);
    expect(toolMessages(outcome.messages)[0]!.content).toMatch(/ran out of time while "getWeather" was running/);
    expect(historyViolations(outcome.messages)).toEqual([]);
  });

  it('does not start the tools of a reply that arrives after the deadline', async () => {
    let clock = Date.now();
    const gateway = createFakeGateway([weatherTool]);
    const { run } = setup(
      [async () => { clock += 10_000; return toolCallsReply([{ id: 'late', name: 'getWeather', arguments: { city: '上海' } }]); }],
      { tools: [offered(getWeather)], deadlineAt: clock + 5_000, now: () => clock },
      gateway,
    );
    const outcome = await run();
    expect(outcome).toMatchObject({ stopReason: 'deadline', rounds: 1 });
    expect(gateway.calls).toEqual([]);
    expect(outcome.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'late', content: expect.stringMatching(/Not executed: the turn ran out of time/) });
    expect(historyViolations(outcome.messages)).toEqual([]);
  });

  it('stops with error when the model fails after tools ran, keeping their results', async () => {
    const { run } = setup([
      toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }]),
      new ModelError('model_unavailable', 'HTTP 503 from the model'),
    ]);
    const outcome = await run();
    expect(outcome).toMatchObject({ stopReason: 'error', rounds: 1, cause: { code: 'model_unavailable', timeout: false } });
    expect(outcome.toolCalls).toHaveLength(1);
    expect(historyViolations(outcome.messages)).toEqual([]);
  });

  it('stops with error and no rounds when the first model call fails', async () => {
    const { run } = setup([new ModelError('model_timeout', 'no answer in 30 s', { timeout: true })]);
    const outcome = await run();
    expect(outcome).toMatchObject({ stopReason: 'error', rounds: 0, toolCalls: [], cause: { code: 'model_timeout', timeout: true } });
    expect(outcome.cause).toBeInstanceOf(ModelError);
  });

  it('keeps provider data the next request must carry (reasoning, Gemini extra_content) on the assistant message', async () => {
    const reply = { ...toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: 'a' } }]), reasoning: { text: 'think' }, providerData: { openai: { reasoningField: 'reasoning_content', extraContent: { google: { thought_signature: 'SIG' } } } } };
    const { model, run } = setup([reply, textReply('done')]);
    await run();
    expect(model.requests[1]!.messages[2]).toMatchObject({ role: 'assistant', reasoning: { text: 'think' }, providerData: { openai: { reasoningField: 'reasoning_content', extraContent: { google: { thought_signature: 'SIG' } } } } });
  });

  it('gives a repeated tool call id a fresh one so each result answers exactly one call', async () => {
    const same = toolCallsReply([{ id: 'call_0', name: 'getWeather', arguments: { city: 'a' } }]);
    const { model, run } = setup([same, same, textReply('done')]);
    const outcome = await run();
    const ids = outcome.messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((call) => call.id) : []));
    expect(ids[0]).toBe('call_0');
    expect(ids[1]).not.toBe('call_0');
    expect(toolMessages(outcome.messages).map((message) => message.toolCallId)).toEqual(ids);
    expect(historyViolations(model.requests[2]!.messages)).toEqual([]);
  });

  describe('tool control', () => {
    const many = (count: number) => toolCallsReply(Array.from({ length: count }, (_, index) => ({ id: `call_${index}`, name: 'getWeather', arguments: { city: `city ${index}` } })));

    it('runs at most tools.maxCallsPerRound calls of one reply and answers the rest with the limit that stopped them', async () => {
      const gateway = createFakeGateway([weatherTool, cancelTool]);
      const { run } = setup([many(40), textReply('done')], {}, gateway);
      const outcome = await run();
      expect(gateway.calls).toHaveLength(16);
      const answers = toolMessages(outcome.messages);
      expect(answers).toHaveLength(40);
      expect(answers.map((message) => message.toolCallId)).toEqual(Array.from({ length: 40 }, (_, index) => `call_${index}`));
      expect(answers[16]!.content).toMatch(/asked for 40 tool calls and at most 16 run per reply \(tools\.maxCallsPerRound\)/);
      expect(outcome.toolCalls.filter((call) => !call.ok)).toHaveLength(24);
      expect(historyViolations(outcome.messages)).toEqual([]);
    });

    it('runs at most tools.maxCallsPerTurn calls in one turn', async () => {
      const gateway = createFakeGateway([weatherTool, cancelTool]);
      const { run } = setup([many(3), many(3), textReply('done')], { limits: { maxCallsPerTurn: 4 } }, gateway);
      const outcome = await run();
      expect(gateway.calls).toHaveLength(4);
      expect(toolMessages(outcome.messages).at(-1)!.content).toMatch(/already made 4 tool calls, its limit \(tools\.maxCallsPerTurn\)/);
    });

    it('cuts the results past tools.maxTurnOutputChars with a note, the next round’s to nothing, and leaves refused calls whole', async () => {
      const gateway = createFakeGateway([{ definition: getWeather, run: (args: Record<string, unknown>) => (args.city === 'e' ? { ok: false, text: 'the weather service is down' } : { ok: true, text: `${String(args.city)}:`.padEnd(80, 'x') }) }]);
      const weather = (ids: string[]) => toolCallsReply(ids.map((id) => ({ id, name: 'getWeather', arguments: { city: id } })));
      const { run } = setup([weather(['a', 'b', 'c']), weather(['d', 'e']), textReply('done')], { tools: [offered(getWeather)], limits: { maxTurnOutputChars: 100, maxCallsPerRound: 2, maxConcurrentCalls: 1 } }, gateway);

      const outcome = await run();

      const [a, b, c, d, e] = toolMessages(outcome.messages).map((message) => message.content);
      expect(a).toBe('a:'.padEnd(80, 'x'));
      expect(b).toMatch(/^b:x{18}\n…\[cut: this turn's tool results reached their limit of 100 characters \(tools\.maxTurnOutputChars\); 60 of this result's 80 characters are left out\. Answer with what you have/);
      expect(c).toMatch(/^Not executed: this reply asked for 3 tool calls/);
      expect(d).toMatch(/^Not shown: this turn's tool results already reached their limit of 100 characters \(tools\.maxTurnOutputChars\), so this result \(80 characters\) is left out\./);
      // A failure still says why.
      expect(e).toBe('Error: the weather service is down');
      // The calls ran, and are reported as they ran.
      expect(outcome.toolCalls.map((call) => [call.id, call.ok])).toEqual([['a', true], ['b', true], ['c', false], ['d', true], ['e', false]]);
      expect(outcome.stopReason).toBe('completed');
    });

    it('runs at most tools.maxConcurrentCalls at once, the rest waiting their turn', async () => {
      let running = 0;
      let most = 0;
      const gateway = createFakeGateway([{ definition: getWeather, run: async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 10));
        running -= 1;
        return { ok: true, text: 'ok' };
      } }]);
      const { run } = setup([many(10), textReply('done')], { tools: [offered(getWeather)], limits: { maxConcurrentCalls: 3 } }, gateway);
      await run();
      expect(gateway.calls).toHaveLength(10);
      expect(most).toBe(3);
    });

    it('records the round before and after calls that may change something, and not for read-only ones', async () => {
      const records: HistoryMessage[][] = [];
      const journal = { record: async (draft: TurnDraft) => void records.push(structuredClone(draft.messages)) };
      const { run } = setup([
        toolCallsReply([{ id: 'w', name: 'getWeather', arguments: { city: 'a' } }]),
        toolCallsReply([{ id: 'c', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }]),
        textReply('done'),
      ], { journal });
      await run();
      expect(records).toHaveLength(2);
      expect(findOpenRound(records[0]!)?.unanswered.map((call) => call.id)).toEqual(['c']);
      expect(historyViolations(records[1]!)).toEqual([]);
      expect(toolMessages(records[1]!).map((message) => message.toolCallId)).toEqual(['w', 'c']);
    });

    it('runs nothing of a round it could not record, and fails the turn with the store’s error', async () => {
      const gateway = createFakeGateway([weatherTool, cancelTool]);
      const failure = new StoreError('store_unavailable', 'DynamoDB is down');
      const { run } = setup([toolCallsReply([{ id: 'c', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }])], { journal: { record: async () => { throw failure; } } }, gateway);
      const outcome = await run();
      expect(outcome).toMatchObject({ stopReason: 'error', cause: failure });
      expect(gateway.calls).toEqual([]);
      expect(toolMessages(outcome.messages)[0]!.content).toMatch(/could not record this call before running it, so it did not run/);
      expect(historyViolations(outcome.messages)).toEqual([]);
    });

    it('runs the calls that need no approval, then pauses with the others waiting and unanswered', async () => {
      const gateway = createFakeGateway([weatherTool, cancelTool]);
      const { run } = setup([toolCallsReply([
        { id: 'w', name: 'getWeather', arguments: { city: 'a' } },
        { id: 'c', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD9'] } },
      ])], { tools: [offered(getWeather), offered(batchCancelOrdersByOrderNo, { needsApproval: true })] }, gateway);
      const outcome = await run();
      expect(outcome).toMatchObject({ stopReason: 'approval_required', rounds: 1, pending: [{ toolCallId: 'c', name: 'batchCancelOrdersByOrderNo', server: 'fake', arguments: { orderNos: ['ORD9'] } }] });
      expect(gateway.calls.map((call) => call.name)).toEqual(['getWeather']);
      expect(findOpenRound(outcome.messages)?.unanswered.map((call) => call.id)).toEqual(['c']);
    });

    it('answers a call to a tool that is not offered like an unknown tool, without calling it', async () => {
      const gateway = createFakeGateway([weatherTool, cancelTool]);
      const { run } = setup([toolCallsReply([{ id: 'c', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['x'] } }]), textReply('ok')], { tools: [offered(getWeather)] }, gateway);
      const outcome = await run();
      expect(gateway.calls).toEqual([]);
      expect(toolMessages(outcome.messages)[0]!.content).toMatch(/no tool named "batchCancelOrdersByOrderNo"\. Available tools: getWeather\./);
    });
  });
});
