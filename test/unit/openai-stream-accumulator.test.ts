/**
 * The accumulator over the chunk sequences llm-quirks.md §2.7 lists, each reduced to what makes it
 * tricky, and read through normalizeCompletion as the adapter reads it.
 */
import { describe, expect, it } from 'vitest';
import { normalizeCompletion } from '../../lib/adapters/openai/normalize.ts';
import { createCompletionAccumulator } from '../../lib/adapters/openai/stream-accumulator.ts';
import { ModelError } from '../../lib/core/errors.ts';
import { openAIReasoning } from '../support/openai-reasoning.ts';

type Json = Record<string, unknown>;

/** A chunk with one choice whose delta is given. */
const chunk = (delta: Json, extra: Json = {}): Json => ({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], ...extra });
/** A chunk whose delta carries these tool-call entries. */
const calls = (...entries: Json[]): Json => chunk({ tool_calls: entries });

function accumulate(chunks: unknown[]): Json {
  const accumulator = createCompletionAccumulator();
  for (const each of chunks) accumulator.add(each);
  return accumulator.completion();
}

const replyOf = (chunks: unknown[]) => normalizeCompletion(accumulate(chunks), () => 'call_generated');
const callsOf = (chunks: unknown[]) => replyOf(chunks).toolCalls.map(({ id, name, arguments: text }) => ({ id, name, arguments: text }));

describe('createCompletionAccumulator: tool calls', () => {
  it('joins OpenAI’s argument fragments to the call whose id and name came only in its first delta', () => {
    expect(
      callsOf([
        calls({ index: 0, id: 'call_a', type: 'function', function: { name: 'getWeather', arguments: '' } }),
        calls({ index: 0, function: { arguments: '{"ci' } }),
        calls({ index: 1, id: 'call_b', type: 'function', function: { name: 'getNews', arguments: '' } }),
        calls({ index: 0, function: { arguments: 'ty":"上海"}' } }),
        calls({ index: 1, function: { arguments: '{"categorys":[1]}' } }),
      ]),
    ).toEqual([
      { id: 'call_a', name: 'getWeather', arguments: '{"city":"上海"}' },
      { id: 'call_b', name: 'getNews', arguments: '{"categorys":[1]}' },
    ]);
  });

  it('keeps the id when Alibaba sends id "" on continuations, and ignores a trailing empty fragment', () => {
    expect(
      callsOf([
        calls({ index: 0, id: 'call_eee1', type: 'function', function: { name: 'weather', arguments: '' } }),
        calls({ index: 0, id: '', type: 'function', function: { arguments: '{"location": "San' } }),
        calls({ index: 0, id: '', type: 'function', function: { arguments: ' Francisco"}' } }),
        calls({ index: 0, id: '', type: 'function', function: { arguments: '' } }),
      ]),
    ).toEqual([{ id: 'call_eee1', name: 'weather', arguments: '{"location": "San Francisco"}' }]);
  });

  it('never concatenates the id, type and name Fireworks repeats in every delta', () => {
    const repeated = (fragment: string) => calls({ index: 0, id: 'chatcmpl-tool-aa62', type: 'function', function: { name: 'debug_tool', arguments: fragment }, name: null });

    expect(callsOf([repeated(''), repeated('{"a":'), repeated('1}')])).toEqual([{ id: 'chatcmpl-tool-aa62', name: 'debug_tool', arguments: '{"a":1}' }]);
  });

  it('keeps the name when a continuation sends name "" (GLM on the Mistral API)', () => {
    expect(
      callsOf([
        calls({ index: 0, id: 'chatcmpl-tool-9f14', type: 'function', function: { name: 'webSearchTool', arguments: '' } }),
        calls({ index: 0, type: 'function', function: { name: '', arguments: '{"query": "Berlin"}' } }),
      ]),
    ).toEqual([{ id: 'chatcmpl-tool-9f14', name: 'webSearchTool', arguments: '{"query": "Berlin"}' }]);
  });

  it('gives one call for an index that starts at 1 (an Anthropic translation after text)', () => {
    const reply = replyOf([
      chunk({ content: 'Reading it.' }),
      calls({ index: 1, id: 'toolu_01', type: 'function', function: { name: 'read_file', arguments: '' } }),
      calls({ index: 1, function: { arguments: '{"path":' } }),
      calls({ index: 1, function: { arguments: ' "a.txt"}' } }),
    ]);

    expect(reply.content).toBe('Reading it.');
    expect(reply.toolCalls).toEqual([{ id: 'toolu_01', name: 'read_file', arguments: '{"path": "a.txt"}' }]);
  });

  it('adds fragments with index -1 and no id or name to the last call (LiteLLM)', () => {
    expect(
      callsOf([
        calls({ index: 1, id: 'tooluse_Baw', type: 'function', function: { name: 'jira_get_worklog', arguments: '' } }),
        calls({ index: -1, type: 'function', function: { arguments: '{"issue":' } }),
        calls({ index: -1, type: 'function', function: { arguments: '"AB-1"}' } }),
      ]),
    ).toEqual([{ id: 'tooluse_Baw', name: 'jira_get_worklog', arguments: '{"issue":"AB-1"}' }]);
  });

  it('fails a lone LiteLLM entry with index -1 and neither id nor name, beside no text, as the unstreamed reply does: never an empty answer', () => {
    expect(() => replyOf([chunk({ content: '', tool_calls: [{ function: { arguments: '' }, type: 'function', index: -1 }] })])).toThrow(
      expect.objectContaining({ code: 'model_bad_response', message: expect.stringMatching(/names no tool/) }),
    );
  });

  it('drops an entry that names no tool beside text, as the unstreamed reply would (LM Studio)', () => {
    expect(replyOf([chunk({ content: 'Done.', tool_calls: [{ function: { arguments: '' }, type: 'function', index: -1 }] })])).toEqual({
      content: 'Done.',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0 },
    });
  });

  it('tells calls without an index apart by their ids (Mistral sends each call whole, without index or type)', () => {
    expect(
      callsOf([
        calls({ id: 'gSIMJiOkT', function: { name: 'weather', arguments: '{"location": "Paris"}' } }),
        calls({ id: 'KikbB849t', function: { name: 'weather', arguments: '{"location": "Rome"}' } }),
      ]),
    ).toEqual([
      { id: 'gSIMJiOkT', name: 'weather', arguments: '{"location": "Paris"}' },
      { id: 'KikbB849t', name: 'weather', arguments: '{"location": "Rome"}' },
    ]);
  });

  it('reads several entries of one index in one delta as fragments in order (Bedrock gpt-oss)', () => {
    expect(
      callsOf([
        calls({ index: 0, id: 'chatcmpl-tool-98da', type: 'function', function: { name: 'get_weather', arguments: '{"' } }),
        calls(
          { index: 0, id: null, type: 'function', function: { arguments: 'location', name: null } },
          { index: 0, id: null, type: 'function', function: { arguments: '":"', name: null } },
          { index: 0, id: null, type: 'function', function: { arguments: 'Paris', name: null } },
          { index: 0, id: null, type: 'function', function: { arguments: '"}', name: null } },
        ),
      ]),
    ).toEqual([{ id: 'chatcmpl-tool-98da', name: 'get_weather', arguments: '{"location":"Paris"}' }]);
  });

  it('starts a new call when a gateway sends a second call, with its own id and name, at the same index 0', () => {
    expect(
      callsOf([
        calls({ index: 0, id: 'call_1', type: 'function', function: { name: 'getWeather', arguments: '{"city":"北京"}' } }),
        calls({ index: 0, id: 'call_2', type: 'function', function: { name: 'getWeather', arguments: '{"city":"上海"}' } }),
      ]),
    ).toEqual([
      { id: 'call_1', name: 'getWeather', arguments: '{"city":"北京"}' },
      { id: 'call_2', name: 'getWeather', arguments: '{"city":"上海"}' },
    ]);
  });

  it('keeps one call, and its first id, when the id changes mid-call without a name (Poolside)', () => {
    expect(
      callsOf([
        calls({ index: 0, id: 'call_first', type: 'function', function: { name: 'getWeather', arguments: '{"city":' } }),
        calls({ index: 0, id: 'call_second', function: { arguments: '"上海"}' } }),
      ]),
    ).toEqual([{ id: 'call_first', name: 'getWeather', arguments: '{"city":"上海"}' }]);
  });

  it('takes a first delta without arguments (vLLM: arguments null) and serializes arguments sent as an object (llama.cpp)', () => {
    expect(
      callsOf([
        calls({ index: 0, id: 'chatcmpl-tool-41fa', type: 'function', function: { name: 'get_time', arguments: null } }),
        calls({ index: 0, id: null, type: null, function: { arguments: '{"timezone": "UTC"}', name: null } }),
        calls({ index: 1, id: 'call_obj', type: 'function', function: { name: 'getWeather', arguments: { city: '上海' } } }),
      ]),
    ).toEqual([
      { id: 'chatcmpl-tool-41fa', name: 'get_time', arguments: '{"timezone": "UTC"}' },
      { id: 'call_obj', name: 'getWeather', arguments: '{"city":"上海"}' },
    ]);
  });

  it('gives a call streamed without any arguments "{}" and one without an id a generated id', () => {
    expect(callsOf([calls({ index: 0, type: 'function', function: { name: 'get_country' } })])).toEqual([
      { id: 'call_generated', name: 'get_country', arguments: '{}' },
    ]);
  });

  it('keeps Gemini’s extra_content of a call and of the message, merged when it arrives in parts', () => {
    const reply = replyOf([
      calls({ index: 0, id: '', type: 'function', function: { name: 'getWeather', arguments: '{"city":"上海"}' }, extra_content: { google: { thought_signature: 'sig-1' } } }),
      calls({ index: 0, function: { arguments: '' }, extra_content: { google: { thought: true } } }),
      chunk({ extra_content: { google: { thought_signature: 'message-sig' } } }),
    ]);

    expect(reply.toolCalls[0]!.providerData).toEqual({ openai: { extraContent: { google: { thought_signature: 'sig-1', thought: true } } } });
    expect(reply.providerData).toEqual({ openai: { extraContent: { google: { thought_signature: 'message-sig' } } } });
  });
});

describe('createCompletionAccumulator: text, reasoning, usage', () => {
  it('joins content and keeps reasoning under the field it arrived in (DeepSeek, Groq)', () => {
    const reply = replyOf([chunk({ role: 'assistant', content: null, reasoning_content: '' }), chunk({ reasoning_content: 'Think' }), chunk({ reasoning_content: 'ing.' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' })]);
    expect(reply.content).toBe('Hello');
    expect(openAIReasoning(reply)).toEqual({ field: 'reasoning_content', text: 'Thinking.' });
    expect(openAIReasoning(replyOf([chunk({ reasoning: 'We', channel: 'analysis' }), chunk({ reasoning: ' need', channel: 'analysis' })]))).toEqual({ field: 'reasoning', text: 'We need' });
  });

  it('keeps DeepSeek’s empty reasoning_content, which must be echoed back', () => {
    expect(openAIReasoning(replyOf([chunk({ role: 'assistant', content: null, reasoning_content: '' }), calls({ index: 0, id: 'call_00_x', function: { name: 'weather', arguments: '{}' } })]))).toEqual({
      field: 'reasoning_content',
      text: '',
    });
  });

  it('moves a streamed <think> block out of the content, as the unstreamed reply does (vLLM)', () => {
    const pieces = ['<think>', '\nThe user', ' asks.\n', '</think>', '\n\n'];
    const reply = replyOf(pieces.map((content) => chunk({ content })));
    expect(reply.content).toBeNull();
    expect(openAIReasoning(reply)).toEqual({ field: 'reasoning_content', text: 'The user asks.' });
  });

  it('reads Azure’s first chunk without choices and its usage chunk without choices', () => {
    const reply = replyOf([
      { id: '', choices: [], prompt_filter_results: [{ prompt_index: 0 }] },
      chunk({ role: 'assistant', content: 'Capital' }, { usage: null }),
      chunk({ content: ' of Denmark.' }, { usage: null }),
      { choices: [], usage: { prompt_tokens: 15, completion_tokens: 78 } },
    ]);

    expect(reply).toEqual({ content: 'Capital of Denmark.', toolCalls: [], usage: { promptTokens: 15, completionTokens: 78 } });
  });

  it('takes usage from the finish chunk (DeepSeek), the later of two (OpenRouter), or Groq’s x_groq, and counts zero when none came', () => {
    expect(replyOf([chunk({ content: 'a' }), chunk({}, { usage: { prompt_tokens: 339, completion_tokens: 83 } })]).usage).toEqual({ promptTokens: 339, completionTokens: 83 });
    expect(replyOf([chunk({ content: 'a' }, { usage: { prompt_tokens: 1, completion_tokens: 1 } }), chunk({}, { usage: { prompt_tokens: 888, completion_tokens: 74 } })]).usage).toEqual({ promptTokens: 888, completionTokens: 74 });
    expect(replyOf([chunk({ content: 'a' }, { x_groq: { id: 'req_1', usage: { prompt_tokens: 210, completion_tokens: 15 } } })]).usage).toEqual({ promptTokens: 210, completionTokens: 15 });
    expect(replyOf([chunk({ content: 'a' })]).usage).toEqual({ promptTokens: 0, completionTokens: 0 });
  });

  it('decides tool calls by their presence whatever the finish reason says (Snowflake never sends one)', () => {
    const body = accumulate([calls({ index: 0, id: 'toolu_bdrk_1', function: { name: 'weather', arguments: '{}' } }), chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })]);

    expect(body).toMatchObject({ choices: [{ finish_reason: 'stop' }] });
    expect(normalizeCompletion(body).toolCalls).toHaveLength(1);
  });

  it('ignores other choices than the first (n > 1) and chunks that are not objects', () => {
    const reply = replyOf(['[DONE]', null, { choices: [{ index: 1, delta: { content: 'second' } }, { index: 0, delta: { content: 'first' } }] }]);

    expect(reply.content).toBe('first');
  });

  it('reports no reply for a stream without choices, which the normalizer refuses', () => {
    const accumulator = createCompletionAccumulator();
    accumulator.add({ choices: [], usage: { prompt_tokens: 3 } });

    expect(accumulator.hasReply).toBe(false);
    expect(() => normalizeCompletion(accumulator.completion())).toThrow(ModelError);
  });

  it('returns the text each chunk carried, in order, for the deltas', () => {
    const accumulator = createCompletionAccumulator();

    expect(accumulator.add(chunk({ role: 'assistant', content: '', reasoning_content: 'R' }))).toEqual([{ field: 'reasoning_content', text: 'R' }]);
    expect(accumulator.add(chunk({ content: 'T', reasoning: 'S' }))).toEqual([
      { field: 'content', text: 'T' },
      { field: 'reasoning', text: 'S' },
    ]);
    expect(accumulator.add(calls({ index: 0, id: 'c', function: { name: 'n', arguments: '{}' } }))).toEqual([]);
  });
});
