import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeCompletion } from '../../lib/adapters/openai/normalize.ts';
import { replayableArguments, toWireMessages, toWireTools } from '../../lib/adapters/openai/wire.ts';
import type { AssistantMessage, Message } from '../../lib/core/messages.ts';

const recording = (file: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/llm/${file}`, import.meta.url), 'utf8')) as Record<string, any>;

const assistant = (fields: Partial<AssistantMessage>): AssistantMessage => ({
  role: 'assistant',
  content: null,
  toolCalls: [],
  ...fields,
});

describe('toWireMessages', () => {
  it('sends system and user messages as role and content', () => {
    const messages: Message[] = [
      { role: 'system', content: 'You are an assistant.' },
      { role: 'user', content: '上海天气怎么样' },
    ];

    expect(toWireMessages(messages)).toEqual([
      { role: 'system', content: 'You are an assistant.' },
      { role: 'user', content: '上海天气怎么样' },
    ]);
  });

  it('sends an assistant turn with its calls in the OpenAI shape', () => {
    const message = assistant({
      toolCalls: [{ id: 'call_7UjkvIZrlmpFRa36bSDdAbza', name: 'getWeather', arguments: '{"city":"上海"}' }],
    });

    expect(toWireMessages([message])).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_7UjkvIZrlmpFRa36bSDdAbza',
            type: 'function',
            function: { name: 'getWeather', arguments: '{"city":"上海"}' },
          },
        ],
      },
    ]);
  });

  it('leaves the tool_calls key out of a plain text answer', () => {
    const [wire] = toWireMessages([assistant({ content: 'It is sunny.' })]);

    expect(wire).toEqual({ role: 'assistant', content: 'It is sunny.' });
    expect(wire).not.toHaveProperty('tool_calls');
  });

  it('sends an empty answer as "" because content null is only valid next to tool calls', () => {
    expect(toWireMessages([assistant({ content: null })])).toEqual([{ role: 'assistant', content: '' }]);
  });

  it.each(['reasoning_content', 'reasoning'])('echoes reasoning under the field it arrived in (%s)', (field) => {
    const [wire] = toWireMessages([assistant({ content: 'Hi', reasoning: { text: 'thinking' }, providerData: { openai: { reasoningField: field } } })]);

    expect(wire).toEqual({ role: 'assistant', content: 'Hi', [field]: 'thinking' });
  });

  it('sends no reasoning field when the reply had none', () => {
    const [wire] = toWireMessages([assistant({ content: 'Hi' })]);

    expect(Object.keys(wire!)).toEqual(['role', 'content']);
  });

  it('never lets a stored reasoning field overwrite the content', () => {
    const [wire] = toWireMessages([assistant({ content: 'Hi', reasoning: { text: 'oops' }, providerData: { openai: { reasoningField: 'content' } } })]);

    expect(wire).toEqual({ role: 'assistant', content: 'Hi' });
  });

  it('replays a DeepSeek reply exactly as the recorded follow-up request sent it back', () => {
    // Prepare: the reply of one recording is the assistant message of the next request.
    const reply = normalizeCompletion(recording('deepseek/nonstream-tool_calls-reasoning_content.json').response);
    const followUp = recording('deepseek/nonstream-parallel-tool_calls-reasoning_content-roundtrip.json');
    const echoed = followUp.request.body.messages.find((message: any) => message.role === 'assistant');

    // Act
    const [wire] = toWireMessages([
      assistant({ content: reply.content, toolCalls: reply.toolCalls, reasoning: reply.reasoning, providerData: reply.providerData }),
    ]);

    // Assess
    expect(wire).toEqual(echoed);
  });

  it('sends a tool result with tool_call_id and name', () => {
    const message: Message = {
      role: 'tool',
      toolCallId: 'call_U7223vIrlmpFRa36bSDdAbza',
      name: 'getWeather',
      content: '{"city":"上海","weather":"晴"}',
    };

    expect(toWireMessages([message])).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_U7223vIrlmpFRa36bSDdAbza',
        name: 'getWeather',
        content: '{"city":"上海","weather":"晴"}',
      },
    ]);
  });
});

describe('replayableArguments', () => {
  it.each(['{"orderNo":"ORD20250514118566"}', '{\n"location": "Boston, MA"\n}', '{}'])(
    'replays a JSON object verbatim: %j',
    (raw) => {
      expect(replayableArguments(raw)).toBe(raw);
    },
  );

  it.each(['{"city": "上海"', 'city=上海', '[1, 2]', '"上海"', '42', 'null'])(
    'wraps %j, which is not a JSON object, into valid JSON instead of replaying it',
    (raw) => {
      const replayed = replayableArguments(raw);

      expect(replayed).not.toBe(raw);
      expect(JSON.parse(replayed)).toEqual({ invalid_json: raw });
    },
  );

  it('sends empty arguments as {}', () => {
    expect(replayableArguments('  ')).toBe('{}');
  });

  it('is what an assistant turn with broken arguments carries on the wire', () => {
    const message = assistant({ toolCalls: [{ id: 'call_1', name: 'foo', arguments: '{"name": "x",' }] });

    const [wire] = toWireMessages([message]);

    expect(JSON.parse((wire as any).tool_calls[0].function.arguments)).toEqual({ invalid_json: '{"name": "x",' });
  });

  it('checks a call sent again whose arguments changed since, rather than replaying the first verdict', () => {
    const call = { id: 'call_1', name: 'foo', arguments: '{"name": "x"}' };
    const message = assistant({ toolCalls: [call] });
    const argumentsSent = () => (toWireMessages([message])[0] as any).tool_calls[0].function.arguments;
    expect(argumentsSent()).toBe('{"name": "x"}');

    call.arguments = '{"name": "x",';

    expect(JSON.parse(argumentsSent())).toEqual({ invalid_json: '{"name": "x",' });
  });
});

describe('toWireTools', () => {
  it('offers each tool as a function with its name, description and parameters', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

    expect(toWireTools([{ name: 'getWeather', description: '获取天气信息', parameters }])).toEqual([
      { type: 'function', function: { name: 'getWeather', description: '获取天气信息', parameters } },
    ]);
  });
});

describe('Gemini thought signatures (extra_content)', () => {
  it('come back exactly where Gemini sent them: on the message and on each call', () => {
    const body = recording('gemini/nonstream-tool_calls-empty-id.json').response;
    const signature = body.choices[0].message.extra_content;
    const withCallSignature = structuredClone(body);
    withCallSignature.choices[0].message.tool_calls[0].extra_content = { google: { thought_signature: 'CALL-SIG' } };

    const reply = normalizeCompletion(withCallSignature, () => 'call_generated');
    const [wire] = toWireMessages([assistant({ content: reply.content, toolCalls: reply.toolCalls, ...(reply.providerData ? { providerData: reply.providerData } : {}) })]);

    expect(reply.providerData).toEqual({ openai: { extraContent: signature } });
    expect(wire).toMatchObject({ extra_content: signature, tool_calls: [{ id: 'call_generated', extra_content: { google: { thought_signature: 'CALL-SIG' } } }] });
  });

  it('are never sent to a provider that did not send them', () => {
    const reply = normalizeCompletion(recording('openai/nonstream-tool_calls-gpt-4o.json').response);
    const [wire] = toWireMessages([assistant({ content: reply.content, toolCalls: reply.toolCalls })]);
    expect(reply.providerData).toBeUndefined();
    expect(JSON.stringify(wire)).not.toContain('extra_content');
  });

  it('nor is what another provider kept on the message or its calls', () => {
    const [wire] = toWireMessages([
      assistant({
        content: 'Hi',
        toolCalls: [{ id: 'c1', name: 'getWeather', arguments: '{}', providerData: { anthropic: { extraContent: { google: { thought_signature: 'OTHER' } } } } }],
        reasoning: { text: 'thinking' },
        providerData: { bedrock: { reasoning: [{ text: 'thinking', signature: 'BEDROCK-SIG' }] }, anthropic: { reasoningField: 'reasoning_content' } },
      }),
    ]);

    expect(wire).toEqual({ role: 'assistant', content: 'Hi', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'getWeather', arguments: '{}' } }] });
  });
});
