/**
 * One contract, every provider (DESIGN.md, "Models"): the same conversations through the OpenAI
 * adapter against the scripted OpenAI-compatible server and through the Bedrock adapter against the
 * Bedrock stand-in, with the same outcomes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../lib/core/errors.ts';
import type { Message } from '../../lib/core/messages.ts';
import type { ModelDelta, ModelRequest } from '../../lib/core/ports/model.ts';
import type { ToolDefinition } from '../../lib/core/ports/tools.ts';
import { FAILURE_CODES, HARNESSES, type ContractHarness, type ContractModel, type ContractStep, type FailureClass } from '../support/model-contract.ts';
import { batchCancelOrdersByOrderNo, getWeather } from '../support/original-tools.ts';

const TOOLS: ToolDefinition[] = [getWeather, batchCancelOrdersByOrderNo];
const QUESTION: Message[] = [
  { role: 'system', content: 'You help with orders and the weather.' },
  { role: 'user', content: 'Cancel ORD1 and tell me the weather in Shanghai.' },
];
const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ messages: QUESTION, tools: TOOLS, ...overrides });

/** A first turn as another provider wrote it: its ids as that provider made them. */
const firstTurn = (ids: [string, string], failing: string): Message[] => [
  ...QUESTION,
  {
    role: 'assistant',
    content: null,
    toolCalls: [
      { id: ids[0], name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNos":["ORD1"]}' },
      { id: ids[1], name: 'getWeather', arguments: '{"city":"Shanghai"}' },
    ],
  },
  { role: 'tool', toolCallId: ids[0], name: 'batchCancelOrdersByOrderNo', content: '{"cancelled":["ORD1"]}' },
  { role: 'tool', toolCallId: ids[1], name: 'getWeather', content: failing },
];

describe.each(HARNESSES)('the model contract: $name', (harness) => {
  let started: ContractModel[] = [];
  afterEach(async () => {
    for (const model of started) await model.close();
    started = [];
  });
  const start = async (steps: ContractStep[], options?: { maxRetries?: number }) => {
    const model = await harness.start(steps, options);
    started.push(model);
    return model;
  };

  it('answers text only', async () => {
    const { model, rejected } = await start([{ text: 'Done.' }]);

    const reply = await model.complete(request());

    expect(reply).toMatchObject({ content: 'Done.', toolCalls: [] });
    expect(rejected()).toEqual([]);
  });

  it('returns one call', async () => {
    const { model } = await start([{ calls: [{ id: 'call_1', name: 'getWeather', input: { city: 'Shanghai' } }] }]);

    const reply = await model.complete(request());

    expect(reply.toolCalls).toEqual([{ id: 'call_1', name: 'getWeather', arguments: '{"city":"Shanghai"}' }]);
  });

  it('returns parallel calls in order', async () => {
    const { model } = await start([
      { calls: [{ id: 'call_a', name: 'batchCancelOrdersByOrderNo', input: { orderNos: ['ORD1'] } }, { id: 'call_b', name: 'getWeather', input: { city: 'Shanghai' } }] },
    ]);

    const reply = await model.complete(request());

    expect(reply.toolCalls.map((call) => [call.id, call.name, JSON.parse(call.arguments)])).toEqual([
      ['call_a', 'batchCancelOrdersByOrderNo', { orderNos: ['ORD1'] }],
      ['call_b', 'getWeather', { city: 'Shanghai' }],
    ]);
  });

  it('takes a failing tool’s result and answers', async () => {
    const { model, rejected } = await start([{ text: 'Cancelled; the weather service is down.' }]);

    const reply = await model.complete(request({ messages: firstTurn(['call_a', 'call_b'], 'Error: the weather service is down') }));

    expect(reply.content).toBe('Cancelled; the weather service is down.');
    expect(rejected()).toEqual([]);
  });

  it.each([
    ['OpenAI', ['call_7UjkXq3WmZp9Rt2LbV0aHs1d', 'call_Pq8wE2rTy6Ui0oPaSd4fGh5j']],
    ['Bedrock', ['tooluse_kZ3mX9qR_TeWm2bN4pLcVw', 'tooluse_Hy7uJ1kL0-AbCdEfGhIjKl']],
    ['Kimi and Gemini', ['functions.batchCancelOrdersByOrderNo:0', 'function-call-5e0a/getWeather']],
  ] as const)('carries a second turn whose first turn came from %s', async (_provider, ids) => {
    const { model, rejected } = await start([{ text: 'And now?' }]);
    const messages: Message[] = [...firstTurn([...ids], 'sunny'), { role: 'assistant', content: 'Cancelled; sunny.', toolCalls: [] }, { role: 'user', content: 'Thanks. Anything else?' }];

    const reply = await model.complete(request({ messages }));

    expect(reply.content).toBe('And now?');
    expect(rejected()).toEqual([]);
  });

  it.each<[string, ContractStep]>([
    ['text', { text: 'Shanghai: 24 °C, 多云, light wind from the east; ORD1 is cancelled.' }],
    ['calls', { calls: [{ id: 'call_s', name: 'getWeather', input: { city: '上海', days: 3 } }] }],
  ])('streams %s whose deltas join to exactly the unstreamed reply', async (_kind, step) => {
    const { model } = await start([step, step]);
    const deltas: ModelDelta[] = [];

    const unstreamed = await model.complete(request());
    const streamed = await model.complete(request({ onDelta: (delta) => deltas.push(delta) }));

    expect({ ...streamed, usage: undefined }).toEqual({ ...unstreamed, usage: undefined });
    expect(deltas.filter((delta) => delta.kind === 'text').map((delta) => delta.text).join('')).toBe(unstreamed.content ?? '');
  });

  it.each(Object.keys(FAILURE_CODES) as FailureClass[])('reports %s with the same code', async (failure) => {
    const { model } = await start([{ failure }], { maxRetries: 0 });

    const error = await model.complete(request(failure === 'timeout' ? { timeoutMs: 300 } : {})).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe(FAILURE_CODES[failure]);
  });

  it('retries a rate limit before failing, and answers when a retry succeeds', async () => {
    const { model, requestCount } = await start([{ failure: 'rate_limited' }, { text: 'ok' }], { maxRetries: 2 });

    const reply = await model.complete(request());

    expect(reply.content).toBe('ok');
    expect(requestCount()).toBe(2);
  });
});

/**
 * Provider data (DESIGN.md, "Models"): what a provider needs back with its reply (reasoning and its
 * signature) goes back through that provider unchanged, and never to another one, so a conversation
 * can change provider between two requests of one turn.
 */
const THINKING = { text: 'Cancel first, then the weather (contract marker 7f3a).', signature: 'contract-signature-EqQBCkgIARABGAIiQ' };
const PAIRS = HARNESSES.flatMap((writer) => HARNESSES.filter((reader) => reader !== writer).map((reader) => ({ writer, reader, name: `${writer.name} then ${reader.name}` })));

describe.each(PAIRS)('provider data: $name', ({ writer, reader }: { writer: ContractHarness; reader: ContractHarness }) => {
  let started: ContractModel[] = [];
  afterEach(async () => {
    for (const model of started) await model.close();
    started = [];
  });

  it('goes back unchanged through the provider that wrote it, and not at all through another', async () => {
    const calls = [{ id: 'call_pd1', name: 'getWeather', input: { city: 'Shanghai' } }];
    const first = await writer.start([{ calls, thinking: THINKING }, { text: 'Sunny.' }]);
    const second = await reader.start([{ text: 'Sunny.' }]);
    started.push(first, second);

    const reply = await first.model.complete(request());
    // The reply becomes the assistant message as the loop stores it: everything but the usage.
    const { usage: _usage, ...said } = reply;
    const round: Message[] = [
      ...QUESTION,
      { role: 'assistant', ...said },
      ...reply.toolCalls.map((call): Message => ({ role: 'tool', toolCallId: call.id, name: call.name, content: '{"weather":"sunny"}' })),
    ];
    await second.model.complete(request({ messages: round }));
    await first.model.complete(request({ messages: round }));

    const toReader = JSON.stringify(second.sent()[0]);
    expect(toReader).not.toContain(THINKING.signature);
    expect(toReader).not.toContain(THINKING.text);
    expect(second.rejected()).toEqual([]);
    expect(writer.thinkingIn(first.sent()[1]!)).toEqual(THINKING);
    expect(first.rejected()).toEqual([]);
    expect(reply.reasoning?.text).toBe(THINKING.text);
    expect(Object.keys(reply.providerData ?? {})).toEqual([writer.name]);
  });
});
