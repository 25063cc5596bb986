import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeCompletion } from '../../lib/adapters/openai/normalize.ts';
import { ModelError } from '../../lib/core/errors.ts';
import { openAIReasoning } from '../support/openai-reasoning.ts';

type Json = Record<string, any>;

const FIXTURES = fileURLToPath(new URL('../fixtures/llm/', import.meta.url));
const GENERATED_ID = /^call_[A-Za-z0-9]{24}$/;

/**
 * Every recorded completion body: `response`, an abridged one, a lone documented choice, or an
 * assistant message a client logged (LM Studio), each labelled with its file.
 */
const completions = readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.json'))
  .sort()
  .flatMap((file) => {
    const recording = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Json;
    const body = recording.response ?? recording.response_abridged ??
      (recording.response_choice_0 ? { choices: [recording.response_choice_0] } : undefined);
    if (body?.choices) return [{ file, body: body as Json }];
    return ((recording.logged_messages ?? []) as Json[]).flatMap((message, index) =>
      message.role === 'assistant' ? [{ file: `${file}#${index}`, body: { choices: [{ message }] } as Json }] : [],
    );
  });

const wireMessage = (body: Json): Json => body.choices[0].message;
const load = (file: string): Json => {
  const found = completions.find((recording) => recording.file === file);
  if (!found) throw new Error(`no recorded completion ${file}`);
  return structuredClone(found.body);
};

/** Arguments as the provider meant them: parsed JSON text, an object as is, nothing as {}. */
const meantArguments = (raw: unknown): unknown =>
  typeof raw === 'string' ? (raw.trim() === '' ? {} : JSON.parse(raw)) : (raw ?? {});

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Replies with at least one call the model named (LM Studio's nameless entry is tested apart). */
const withToolCalls = completions.filter(({ body }) => {
  const calls = wireMessage(body).tool_calls;
  return Array.isArray(calls) && calls.some((call: Json) => call.function?.name);
});

describe('normalizeCompletion over every recorded provider reply with tool calls', () => {
  it('finds the recordings (the fixture folder is not silently empty)', () => {
    expect(withToolCalls.length).toBeGreaterThanOrEqual(20);
  });

  it.each(withToolCalls)('keeps the calls of $file with unique ids, their names and arguments', ({ body }) => {
    // Prepare
    const sent = (wireMessage(body).tool_calls as Json[]).filter((call) => call.function?.name);

    // Act
    const reply = normalizeCompletion(body);

    // Assess
    expect(reply.toolCalls.length).toBeGreaterThanOrEqual(1);
    expect(reply.toolCalls.map((call) => call.name)).toEqual(sent.map((call) => call.function.name));
    expect(new Set(reply.toolCalls.map((call) => call.id)).size).toBe(reply.toolCalls.length);
    reply.toolCalls.forEach((call, index) => {
      const original = sent[index]!;
      expect(call.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(call.id).not.toBe('');
      expect(call.id === original.id || GENERATED_ID.test(call.id)).toBe(true);
      expect(typeof call.arguments).toBe('string');
      const sentArguments: unknown = original.function.arguments;
      if (typeof sentArguments === 'string' && sentArguments.trim() !== '' && !isJson(sentArguments)) {
        expect(call.arguments).toBe(sentArguments);
      } else {
        expect(JSON.parse(call.arguments)).toEqual(meantArguments(sentArguments));
      }
    });
  });
});

describe('normalizeCompletion on provider quirks', () => {
  it('replaces the empty ids Gemini sends with unique generated ids', () => {
    const body = load('gemini/nonstream-tool_calls-empty-id.json');
    const message = wireMessage(body);
    expect(message.tool_calls[0].id).toBe('');
    message.tool_calls.push(structuredClone(message.tool_calls[0]));

    const ids = normalizeCompletion(body).toolCalls.map((call) => call.id);

    expect(ids).toHaveLength(2);
    ids.forEach((id) => expect(id).toMatch(GENERATED_ID));
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('returns the calls although Snowflake sends an empty finish_reason', () => {
    const body = load('snowflake-cortex/nonstream-tool_calls-empty-finish_reason.json');
    expect(body.choices[0].finish_reason).toBe('');

    const reply = normalizeCompletion(body);

    expect(reply.toolCalls.map((call) => call.id)).toEqual(wireMessage(body).tool_calls.map((call: Json) => call.id));
  });

  it('gives null content when Mistral leaves the content key out', () => {
    const body = load('mistral/nonstream-tool_calls-no-content-key.json');
    expect(wireMessage(body)).not.toHaveProperty('content');

    expect(normalizeCompletion(body).content).toBeNull();
  });

  it('gives null content for an empty string next to tool calls (Mistral large)', () => {
    const body = load('mistral/nonstream-tool_calls.json');
    expect(wireMessage(body).content).toBe('');

    expect(normalizeCompletion(body).content).toBeNull();
  });

  it('keeps DeepSeek reasoning_content under its field, and the text beside the calls', () => {
    const body = load('deepseek/nonstream-tool_calls-reasoning_content.json');

    const reply = normalizeCompletion(body);

    expect(openAIReasoning(reply)).toEqual({ field: 'reasoning_content', text: wireMessage(body).reasoning_content });
    expect(reply.content).toBe(wireMessage(body).content);
  });

  it('keeps Groq reasoning under the field named reasoning', () => {
    const body = load('groq/nonstream-tool_calls-reasoning.json');

    expect(openAIReasoning(normalizeCompletion(body))).toEqual({ field: 'reasoning', text: wireMessage(body).reasoning });
  });

  it('moves the <think> block vLLM leaves in content out of the content, as reasoning', () => {
    const body = load('vllm/nonstream-qwen3-0.6b-hermes-think-in-content.json');
    const thought = /<think>([\s\S]*)<\/think>/.exec(wireMessage(body).content)![1]!.trim();

    const reply = normalizeCompletion(body);

    expect(reply.content).toBeNull();
    expect(openAIReasoning(reply)).toEqual({ field: 'reasoning_content', text: thought });
    expect(reply.toolCalls).toHaveLength(1);
  });

  it('keeps the answer that follows a <think> block', () => {
    const body = { choices: [{ message: { content: '<think>\nsum it\n</think>\n\nThe answer is 8.' } }] };

    const reply = normalizeCompletion(body);

    expect(reply.content).toBe('The answer is 8.');
    expect(openAIReasoning(reply)).toEqual({ field: 'reasoning_content', text: 'sum it' });
  });

  it('finds no calls in LM Studio text replies that carry an empty tool_calls array', () => {
    const body = load('lmstudio/nonstream-text-with-empty-tool_calls-array.json');

    const reply = normalizeCompletion(body);

    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toBe(wireMessage(body).content);
  });

  it('returns the text and no calls for a final answer (Mistral, tool_calls null)', () => {
    const body = load('mistral/nonstream-final-after-tool-result.json');
    expect(wireMessage(body).tool_calls).toBeNull();

    const reply = normalizeCompletion(body);

    expect(reply).toEqual({
      content: wireMessage(body).content,
      toolCalls: [],
      usage: { promptTokens: body.usage.prompt_tokens, completionTokens: body.usage.completion_tokens },
    });
  });

  it('drops the LM Studio call that has an empty id and no function, keeping the numeric ids', () => {
    const withCall = load('lmstudio/conversation-numeric-id-then-empty-id-tool_call.json#0');
    const withBrokenCall = load('lmstudio/conversation-numeric-id-then-empty-id-tool_call.json#2');
    expect(wireMessage(withBrokenCall).tool_calls).toEqual([{ id: '', type: 'function' }]);

    const good = normalizeCompletion(withCall);
    const broken = normalizeCompletion(withBrokenCall);

    expect(good.toolCalls.map((call) => call.id)).toEqual([wireMessage(withCall).tool_calls[0].id]);
    expect(broken.toolCalls).toEqual([]);
    expect(broken.content).toBe(wireMessage(withBrokenCall).content);
  });

  it('serializes arguments sent as an object (llama.cpp, TGI)', () => {
    const body = load('mistral/nonstream-tool_calls.json');
    const call = wireMessage(body).tool_calls[0];
    const asObject = JSON.parse(call.function.arguments);
    call.function.arguments = asObject;

    const [normalized] = normalizeCompletion(body).toolCalls;

    expect(typeof normalized!.arguments).toBe('string');
    expect(JSON.parse(normalized!.arguments)).toEqual(asObject);
  });

  it.each([[''], [null], [undefined], ['   ']])('turns arguments %j into "{}"', (raw) => {
    const body = { choices: [{ message: { tool_calls: [{ id: 'a', function: { name: 'foo', arguments: raw } }] } }] };

    expect(normalizeCompletion(body).toolCalls[0]!.arguments).toBe('{}');
  });

  it('keeps arguments that are not JSON as sent, for the loop to report to the model', () => {
    const body = { choices: [{ message: { tool_calls: [{ id: 'a', function: { name: 'foo', arguments: '{"x": 1' } }] } }] };

    expect(normalizeCompletion(body).toolCalls[0]!.arguments).toBe('{"x": 1');
  });

  it('makes duplicate ids within one reply unique, keeping the first', () => {
    const body = load('deepseek/nonstream-parallel-tool_calls-reasoning_content-roundtrip.json');
    const [first, second] = wireMessage(body).tool_calls as Json[];
    second!.id = first!.id;

    const ids = normalizeCompletion(body).toolCalls.map((call) => call.id);

    expect(ids[0]).toBe(first!.id);
    expect(ids[1]).toMatch(GENERATED_ID);
  });

  it('never gives a generated id that another call of the reply already has', () => {
    const body = {
      choices: [{ message: { tool_calls: [
        { id: '', function: { name: 'a' } },
        { id: 'call_taken', function: { name: 'b' } },
      ] } }],
    };
    const proposals = ['call_taken', 'call_free'];

    const ids = normalizeCompletion(body, () => proposals.shift()!).toolCalls.map((call) => call.id);

    expect(ids).toEqual(['call_free', 'call_taken']);
  });

  it.each([[null], [''], ['  \n\n '], [undefined], [42]])('gives null content for %j', (content) => {
    expect(normalizeCompletion({ choices: [{ message: { role: 'assistant', content } }] }).content).toBeNull();
  });

  it('counts usage as zero when the provider sends none', () => {
    expect(normalizeCompletion({ choices: [{ message: { content: 'hi' } }] }).usage).toEqual({
      promptTokens: 0,
      completionTokens: 0,
    });
  });

  it.each([
    ['no choices', { id: 'x' }],
    ['an empty choices list', { choices: [] }],
    ['a choice without message', { choices: [{ index: 0 }] }],
    ['not an object', 'Service Unavailable'],
  ])('throws model_bad_response for %s', (_label, body) => {
    expect(() => normalizeCompletion(body)).toThrow(expect.objectContaining({ code: 'model_bad_response' }));
    expect(() => normalizeCompletion(body)).toThrow(ModelError);
  });

  it('keeps the provider error of a 200 answer that carries an error envelope for the log, out of the message', () => {
    let thrown: unknown;
    try {
      normalizeCompletion({ error: { message: 'upstream http://10.0.0.5:8000 overloaded' } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'model_bad_response', detail: 'upstream http://10.0.0.5:8000 overloaded' });
    expect((thrown as ModelError).message).not.toMatch(/upstream|10\.0\.0\.5/);
  });
});
