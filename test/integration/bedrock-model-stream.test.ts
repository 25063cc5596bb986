/**
 * ConverseStream through the adapter: AWS event-stream frames (the SDK's own codec) from the
 * stand-in over HTTP/2, deltas handed out as they come, the accumulated reply equal to Converse's.
 */
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../lib/core/errors.ts';
import type { Message } from '../../lib/core/messages.ts';
import type { ModelDelta, ModelReply, ModelRequest } from '../../lib/core/ports/model.ts';
import { bedrockModelsPerTest } from '../support/bedrock-model.ts';
import { converseText, converseToolUse, eventsOf, usage } from '../support/bedrock-stand-in-events.ts';
import { getWeather } from '../support/original-tools.ts';

const modelAgainst = bedrockModelsPerTest('anthropic.claude-3-7-sonnet-20250219-v1:0');
const MESSAGES: Message[] = [
  { role: 'system', content: 'You help.' },
  { role: 'user', content: 'Weather in 上海?' },
];
const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ messages: MESSAGES, tools: [getWeather], ...overrides });

const REPLIES = {
  text: converseText('Shanghai: 24 °C, 多云, light wind from the east.', 'end_turn', usage(33, 14)),
  'parallel calls': converseToolUse(
    [
      { toolUseId: 'tooluse_a', name: 'getWeather', input: { city: '上海', unit: 'celsius' } },
      { toolUseId: 'tooluse_b', name: 'getWeather', input: {} },
    ],
    'Checking both.',
  ),
  'reasoning and a call': {
    output: {
      message: {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'Need the weather tool for 上海.', signature: 'sig-abc-123' } } },
          { text: 'One moment.' },
          { toolUse: { toolUseId: 'tooluse_r', name: 'getWeather', input: { city: '上海' } } },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: usage(20, 40, { read: 100 }),
  },
};

async function streamed(model: { complete(request: ModelRequest): Promise<ModelReply> }, overrides: Partial<ModelRequest> = {}) {
  const deltas: ModelDelta[] = [];
  const reply = await model.complete(request({ ...overrides, onDelta: (delta) => deltas.push(delta) }));
  return { reply, deltas };
}

const joined = (deltas: ModelDelta[], kind: ModelDelta['kind']) => deltas.filter((delta) => delta.kind === kind).map((delta) => delta.text).join('');

describe('createBedrockModel streaming', () => {
  it.each(Object.entries(REPLIES))('accumulates %s into exactly the unstreamed reply, deltas joining to its text', async (_name, reply) => {
    const { standIn, model } = await modelAgainst([reply, reply]);

    const unstreamed = await model.complete(request());
    const { reply: accumulated, deltas } = await streamed(model);

    expect(standIn.requests.map((sent) => [sent.operation, sent.httpVersion])).toEqual([
      ['converse', '2.0'],
      ['converse-stream', '2.0'],
    ]);
    expect(accumulated).toEqual(unstreamed);
    expect(deltas.length).toBeGreaterThan(1);
    expect(joined(deltas, 'text')).toBe(unstreamed.content ?? '');
    expect(joined(deltas, 'reasoning')).toBe(unstreamed.reasoning?.text ?? '');
  });

  it('hands out the sentence a guardrail intervention is answered with, so the deltas still join to the reply', async () => {
    const blocked = { output: { message: { role: 'assistant', content: [] } }, stopReason: 'guardrail_intervened', usage: usage(9, 0) };
    const { model } = await modelAgainst([blocked, blocked]);

    const unstreamed = await model.complete(request());
    const { reply, deltas } = await streamed(model);

    expect(reply).toEqual(unstreamed);
    expect(joined(deltas, 'text')).toBe(reply.content);
  });

  it('sends ConverseStream the same request body as Converse', async () => {
    const { standIn, model } = await modelAgainst([REPLIES.text, REPLIES.text]);

    await model.complete(request());
    await streamed(model);

    expect(standIn.requests[1]!.body).toEqual(standIn.requests[0]!.body);
  });

  it('keeps the text of a call cut off by max_tokens as its arguments', async () => {
    const whole = eventsOf(converseToolUse([{ toolUseId: 'tooluse_cut', name: 'getWeather', input: { city: 'Shanghai' } }]));
    const lastFragment = whole.findLastIndex((event) => 'type' in event && event.type === 'contentBlockDelta');
    const events = whole
      .filter((_event, index) => index !== lastFragment)
      .map((event) => ('type' in event && event.type === 'messageStop' ? { type: 'messageStop', payload: { stopReason: 'max_tokens' } } : event));
    const { model } = await modelAgainst([{ events }]);

    const { reply } = await streamed(model);

    expect(reply.toolCalls).toHaveLength(1);
    expect(() => JSON.parse(reply.toolCalls[0]!.arguments)).toThrow();
    expect(reply.toolCalls[0]!.arguments.startsWith('{"city":"Shang')).toBe(true);
  });

  it('retries a stream that fails before any delta, and hands each delta out once', async () => {
    const { standIn, model } = await modelAgainst([{ events: [{ exception: 'throttlingException', message: 'Too many tokens, please wait.' }] }, REPLIES.text]);

    const { reply, deltas } = await streamed(model);

    expect(standIn.requests).toHaveLength(2);
    expect(reply.content).toBe(REPLIES.text.output.message.content[0]!.text);
    expect(joined(deltas, 'text')).toBe(reply.content);
  });

  it('retries a ConverseStream refused before it starts (ThrottlingException)', async () => {
    const { standIn, model } = await modelAgainst([{ exception: 'ThrottlingException', message: 'Too many requests', status: 429, headers: { 'retry-after-ms': '10' } }, REPLIES.text]);

    const { reply } = await streamed(model);

    expect(standIn.requests).toHaveLength(2);
    expect(reply.content).toBe(REPLIES.text.output.message.content[0]!.text);
  });

  it('never retries once a delta was handed out', async () => {
    const partial = eventsOf(REPLIES.text).slice(0, 3);
    const { standIn, model } = await modelAgainst([{ events: [...partial, { exception: 'serviceUnavailableException', message: 'The service is unavailable.' }] }, REPLIES.text]);
    const deltas: ModelDelta[] = [];

    const failure = await model.complete(request({ onDelta: (delta) => deltas.push(delta) })).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ code: 'model_unavailable' });
    expect(standIn.requests).toHaveLength(1);
    expect(deltas.length).toBeGreaterThan(0);
  });

  it('does not take a stream cut off before messageStop for a whole reply', async () => {
    const partial = eventsOf(REPLIES.text).slice(0, 3);
    const { standIn, model } = await modelAgainst([{ events: partial, ending: 'end' }]);

    const failure = await streamed(model).catch((error: unknown) => error);

    expect(failure).toMatchObject({ code: 'model_unavailable' });
    expect(String((failure as Error).message)).toContain('no messageStop');
    expect(standIn.requests).toHaveLength(1);
  });

  it('fails with model_timeout when the stream stalls after a delta, without retrying', async () => {
    const partial = eventsOf(REPLIES.text).slice(0, 2);
    const { standIn, model } = await modelAgainst([{ events: partial, ending: 'hang' }], { attemptTimeoutMs: 300 });

    const failure = await streamed(model).catch((error: unknown) => error);

    expect(failure).toMatchObject({ code: 'model_timeout', timeout: true });
    expect(standIn.requests).toHaveLength(1);
  });

  it('does not fail the reply when the watcher throws (a client that went away)', async () => {
    const { model } = await modelAgainst([REPLIES.text]);

    const reply = await model.complete(request({ onDelta: () => { throw new Error('client gone'); } }));

    expect(reply.content).toBe(REPLIES.text.output.message.content[0]!.text);
  });
});
