/**
 * The streaming path of the OpenAI adapter (a request with `onDelta`), through the real SDK over
 * real HTTP: every streamed provider recording replayed as Server-Sent Events, then the failures a
 * stream adds (error events, connections that break off or stall) and how they are retried.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { normalizeCompletion } from '../../lib/adapters/openai/normalize.ts';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/config/schema.ts';
import type { Message } from '../../lib/core/messages.ts';
import type { ModelDelta, ModelReply, ModelRequest } from '../../lib/core/ports/model.ts';
import type { ToolDefinition } from '../../lib/core/ports/tools.ts';
import { modelFailure, modelsPerTest, QUICK_RETRY } from '../support/openai-model.ts';
import { openAIReasoning } from '../support/openai-reasoning.ts';
import { batchCancelOrdersByOrderNo, getWeather } from '../support/original-tools.ts';
import {
  streamedAsOpenAI,
  textReply,
  toolCallsReply,
  type ScriptedStream,
} from '../support/scripted-openai-server.ts';
import { expectedCompletions, streamedRecordings } from '../support/streamed-recordings.ts';

type Json = Record<string, any>;

const TOOLS: ToolDefinition[] = [getWeather, batchCancelOrdersByOrderNo];
const MESSAGES: Message[] = [
  { role: 'system', content: DEFAULT_SYSTEM_PROMPT },
  { role: 'user', content: '取消订单ORD20250514118566，再查一下上海的天气' },
];
const GENERATED_ID = /^call_[A-Za-z0-9]{24}$/;

const modelAgainst = modelsPerTest('gpt-4o');

/** A request that watches the reply: every delta is kept, in order. */
function watched(overrides: Partial<ModelRequest> = {}) {
  const deltas: ModelDelta[] = [];
  const request: ModelRequest = { messages: MESSAGES, tools: TOOLS, onDelta: (delta) => deltas.push(delta), ...overrides };
  const joined = (kind: ModelDelta['kind']) => deltas.filter((delta) => delta.kind === kind).map((delta) => delta.text).join('');
  return { request, deltas, joined };
}

/** Ids the normalizer generated (the provider sent none) differ per call; everything else must not. */
function maskGeneratedIds(reply: ModelReply): ModelReply {
  return { ...reply, toolCalls: reply.toolCalls.map((call) => (GENERATED_ID.test(call.id) ? { ...call, id: '<generated>' } : call)) };
}

/** What any reply must be: unique non-empty ids, arguments as JSON text, names the API accepts. */
function expectValidReply(reply: ModelReply): void {
  expect(new Set(reply.toolCalls.map((call) => call.id)).size).toBe(reply.toolCalls.length);
  for (const call of reply.toolCalls) {
    expect(call.id).not.toBe('');
    expect(call.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(() => JSON.parse(call.arguments)).not.toThrow();
  }
  expect(reply.content === null || reply.content.trim() !== '').toBe(true);
}

const recordings = streamedRecordings();
const expected = expectedCompletions();
const replies = recordings.filter(({ file }) => !('error' in (expected[file] ?? {})));

/** How the unstreamed body of a recording fails to be a reply, if it does (a call that names no tool, beside no text). */
function unstreamedFailure(file: string): { code: string; message: string } | undefined {
  try {
    normalizeCompletion(expected[file]);
    return undefined;
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
}

describe('the streaming adapter over every streamed provider recording, replayed as SSE over HTTP', () => {
  it('finds every recording, each with the completion it stands for (no folder silently empty)', () => {
    expect(recordings.length).toBeGreaterThanOrEqual(24);
    expect(recordings.map(({ file }) => file).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(replies.filter(({ file }) => unstreamedFailure(file) === undefined))('$file: the reply is the one the same response gives unstreamed, and the deltas are its text', async ({ file, stream, partial }) => {
    // Prepare: events written in two parts each, so no event arrives whole. An excerpt is closed
    // as a stream that finished ([DONE]); as recorded it is cut off (tested below).
    const { model, server } = await modelAgainst([{ ...stream, splitEvents: true, ...(partial ? { ending: 'done' as const } : {}) }]);
    const { request, deltas, joined } = watched();

    // Act
    const reply = await model.complete(request);

    // Assess
    expect(maskGeneratedIds(reply)).toEqual(maskGeneratedIds(normalizeCompletion(expected[file])));
    expectValidReply(reply);
    expect(joined('text')).toBe(reply.content ?? '');
    expect(joined('reasoning').trim()).toBe(reply.reasoning?.text.trim() ?? '');
    expect(deltas.every((delta) => delta.text !== '')).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it.each(replies.filter(({ file }) => unstreamedFailure(file) !== undefined))('$file: fails as the same response fails unstreamed', async ({ file, stream, partial }) => {
    const { model, server } = await modelAgainst([{ ...stream, ...(partial ? { ending: 'done' as const } : {}) }]);

    const error = await modelFailure(model.complete(watched().request));

    expect(error.code).toBe(unstreamedFailure(file)!.code);
    expect(error.message).toBe(unstreamedFailure(file)!.message);
    expect(server.requests).toHaveLength(1);
  });

  it('fails LiteLLM’s index -1 call, which names no tool, beside no text: never an empty completed reply', async () => {
    const recording = recordings.find(({ file }) => file === 'litellm-proxy/stream-anthropic-tool_call-index-minus-1.json')!;
    const { model } = await modelAgainst([{ ...recording.stream, ending: 'done' }]);

    const error = await modelFailure(model.complete(watched().request));

    expect(error.code).toBe('model_bad_response');
    expect(error.message).toMatch(/names no tool/);
  });

  it.each(recordings.filter(({ partial }) => partial))('$file as recorded (cut off: neither finish_reason nor [DONE]) is a failure, retried as no delta was handed out', async ({ stream }) => {
    const { model, server } = await modelAgainst([stream, stream], { maxRetries: 1 });
    const { request, deltas } = watched();

    const error = await modelFailure(model.complete(request));

    expect(error.code).toBe('model_unavailable');
    expect(error.message).toMatch(/ended before the reply was complete/);
    expect(deltas).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('fails with the provider’s words in the log detail when Groq ends a 200 stream with an error event (tool_use_failed)', async () => {
    const recording = recordings.find(({ file }) => file === 'groq/stream-error-event-tool_use_failed.json')!;
    const { model, server } = await modelAgainst([recording.stream]);
    const { request, joined } = watched();

    const error = await modelFailure(model.complete(request));

    expect(error.code).toBe('model_rejected_request');
    expect(error.message).toContain('HTTP 400');
    expect(error.detail).toContain('HTTP 400: Tool call validation failed');
    // Reasoning was handed out before the error: the call is not retried.
    expect(joined('reasoning')).toMatch(/^We need to call the tool/);
    expect(server.requests).toHaveLength(1);
  });

  // The fixture set holds no response recorded both ways; these are the same test case of one
  // provider recorded streamed and unstreamed (vercel/ai, pydantic-ai): the replies must agree on
  // everything a model does not vary between runs.
  it.each([
    ['alibaba-qwen/nonstream-tool_call.json', 'alibaba-qwen/stream-tool_call-empty-id-continuations.json'],
    ['deepseek/nonstream-tool_call-reasoner.json', 'deepseek/stream-tool_call-reasoning_content.json'],
    ['groq/nonstream-tool_call-llama-3.3.json', 'groq/stream-tool_call-llama-3.3.json'],
    ['groq/nonstream-tool_calls-reasoning.json', 'groq/stream-tool_calls.json'],
    ['xai/nonstream-tool_call-reasoning_content.json', 'xai/stream-tool_call-reasoning_content.json'],
  ])('%s and %s give replies of the same shape', async (unstreamedFile, streamedFile) => {
    const unstreamed = JSON.parse(readFileSync(new URL(`../fixtures/llm/${unstreamedFile}`, import.meta.url), 'utf8')).response as Json;
    const recording = recordings.find(({ file }) => file === streamedFile)!;
    const { model } = await modelAgainst([recording.stream]);

    const streamedReply = await model.complete(watched().request);

    const shape = (reply: ModelReply) => ({
      content: reply.content,
      reasoningField: openAIReasoning(reply)?.field,
      calls: reply.toolCalls.map((call) => ({ name: call.name, argumentNames: Object.keys(JSON.parse(call.arguments)) })),
    });
    expect(shape(streamedReply)).toEqual(shape(normalizeCompletion(unstreamed)));
  });
});

describe('createOpenAIModel streaming request', () => {
  it('asks for a stream with usage, and otherwise sends what the unstreamed call sends', async () => {
    const { model, server } = await modelAgainst([textReply('好的'), streamedAsOpenAI(textReply('好的'))]);

    await model.complete({ messages: MESSAGES, tools: TOOLS });
    await model.complete(watched().request);

    const [unstreamed, streamed] = server.requests.map((recorded) => recorded.body as Json);
    expect(unstreamed).toMatchObject({ stream: false });
    expect(unstreamed).not.toHaveProperty('stream_options');
    expect(streamed).toEqual({ ...unstreamed, stream: true, stream_options: { include_usage: true } });
  });

  it('returns the same reply as the unstreamed call for the original request’s two calls and answer', async () => {
    const calls = toolCallsReply([
      { id: 'call_7UjkvIZrlmpFRa36bSDdAbza', name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNos":["ORD20250514118566"]}' },
      { id: 'call_U7223vIrlmpFRa36bSDdAbza', name: 'getWeather', arguments: '{"city":"上海"}' },
    ]);
    const answer = textReply('上海今天多云，22°C；订单 ORD20250514118566 已经是取消状态。');
    const { model } = await modelAgainst([calls, streamedAsOpenAI(calls, { pieceLength: 3 }), answer, streamedAsOpenAI(answer, { pieceLength: 3 })]);

    for (let round = 0; round < 2; round += 1) {
      const unstreamed = await model.complete({ messages: MESSAGES, tools: TOOLS });
      const { request, joined } = watched();
      const streamed = await model.complete(request);

      expect(streamed).toEqual(unstreamed);
      expect(joined('text')).toBe(unstreamed.content ?? '');
    }
  });

  it('hands each delta out as it arrives, before the stream ends', async () => {
    // Two pieces, then nothing: the deltas must be out while the reply is still pending.
    const { model } = await modelAgainst([{ ...streamedAsOpenAI(textReply('上海今天多云'), { pieceLength: 3 }), ending: 'hang' }]);
    const controller = new AbortController();
    const { request, deltas } = watched({ signal: controller.signal });

    const pending = modelFailure(model.complete(request));
    await vi.waitFor(() => expect(deltas).toEqual([{ kind: 'text', text: '上海今' }, { kind: 'text', text: '天多云' }]), { timeout: 10_000 });
    controller.abort();

    expect((await pending).code).toBe('model_aborted');
  }, 20_000);

  it('hands out reasoning as reasoning, and a vLLM <think> block in the content too', async () => {
    const body = { choices: [{ message: { role: 'assistant', content: '<think>\nThe user wants Shanghai.\n</think>\n\n上海多云。' }, finish_reason: 'stop' }] };
    const { model } = await modelAgainst([streamedAsOpenAI(body, { pieceLength: 2 })]);
    const { request, joined } = watched();

    const reply = await model.complete(request);

    expect(reply.content).toBe('上海多云。');
    expect(openAIReasoning(reply)).toEqual({ field: 'reasoning_content', text: 'The user wants Shanghai.' });
    expect(joined('text')).toBe('上海多云。');
    expect(joined('reasoning')).toBe('\nThe user wants Shanghai.\n');
  });

  it('keeps multi-byte text whole when events arrive split mid-character', async () => {
    const text = '订单 ORD20250514118567 已取消 ✅，上海：多云 🌥️';
    const { model } = await modelAgainst([{ ...streamedAsOpenAI(textReply(text), { pieceLength: 5 }), splitEvents: true }]);
    const { request, joined } = watched();

    const reply = await model.complete(request);

    expect(reply.content).toBe(text);
    expect(joined('text')).toBe(text);
  });

  it('does not fail the reply when the watcher throws (a client that went away)', async () => {
    const { model } = await modelAgainst([streamedAsOpenAI(textReply('still answered'))]);

    const reply = await model.complete(watched({ onDelta: () => { throw new Error('client gone'); } }).request);

    expect(reply.content).toBe('still answered');
  });
});

describe('createOpenAIModel streaming tool calls written as text (model.textToolCalls)', () => {
  const HERMES_CALL = '<tool_call>\n{"name": "getWeather", "arguments": {"city": "上海"}}\n</tool_call>';
  const textCall = (content: string) => ({ choices: [{ message: { role: 'assistant', content }, finish_reason: 'stop' }] });

  it('turns them into calls and never hands their text out as text', async () => {
    const { model } = await modelAgainst([streamedAsOpenAI(textCall(`<think>weather</think>\n${HERMES_CALL}`), { pieceLength: 3 })], { textToolCalls: true });
    const { request, joined } = watched();

    const reply = await model.complete(request);

    expect(reply.toolCalls).toEqual([{ id: expect.stringMatching(GENERATED_ID), name: 'getWeather', arguments: '{"city":"上海"}' }]);
    expect(reply.content).toBeNull();
    expect(joined('text')).toBe('');
    expect(joined('reasoning')).toBe('weather');
  });

  it('hands held text out at the end when it was not a call after all', async () => {
    const notACall = '{"note": "a JSON answer, not a call"}';
    const { model } = await modelAgainst([streamedAsOpenAI(textCall(notACall), { pieceLength: 3 })], { textToolCalls: true });
    const { request, joined } = watched();

    const reply = await model.complete(request);

    expect(reply.content).toBe(notACall);
    expect(joined('text')).toBe(notACall);
  });

  it('streams ordinary text at once, and the call syntax as text when the option is off', async () => {
    const { model } = await modelAgainst([streamedAsOpenAI(textCall(HERMES_CALL), { pieceLength: 3 })]);
    const { request, deltas, joined } = watched();

    const reply = await model.complete(request);

    expect(reply).toMatchObject({ content: HERMES_CALL, toolCalls: [] });
    expect(joined('text')).toBe(HERMES_CALL);
    expect(deltas.length).toBeGreaterThan(10);
  });
});

describe('createOpenAIModel streaming failures and retries', () => {
  /** An OpenAI stream of the original first reply: two calls, no text, so no delta. */
  const callsOnly = () => streamedAsOpenAI(toolCallsReply([{ id: 'call_U7223vIrlmpFRa36bSDdAbza', name: 'getWeather', arguments: '{"city":"上海"}' }]));
  const firstEvents = (stream: ScriptedStream, count: number): ScriptedStream => ({ sse: stream.sse.slice(0, count) });
  const textStream = () => streamedAsOpenAI(textReply('上海今天多云'), { pieceLength: 2 });

  it('lets the SDK retry a failed request before the stream starts (a 503), and hands each delta out once', async () => {
    const { model, server } = await modelAgainst([{ status: 503, body: { error: { message: 'busy' } }, headers: QUICK_RETRY }, textStream()]);
    const { request, joined } = watched();

    const reply = await model.complete(request);

    expect(reply.content).toBe('上海今天多云');
    expect(joined('text')).toBe('上海今天多云');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a stream that broke off before any delta was handed out', async () => {
    const { model, server } = await modelAgainst([{ ...firstEvents(callsOnly(), 3), ending: 'reset' }, callsOnly()]);
    const { request, deltas } = watched();

    const reply = await model.complete(request);

    expect(reply.toolCalls).toEqual([{ id: 'call_U7223vIrlmpFRa36bSDdAbza', name: 'getWeather', arguments: '{"city":"上海"}' }]);
    expect(deltas).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('never retries once a delta was handed out: the stream breaking off is model_unavailable', async () => {
    const { model, server } = await modelAgainst([{ ...firstEvents(textStream(), 3), ending: 'reset' }, textStream()]);
    const { request, joined } = watched();

    const error = await modelFailure(model.complete(request));

    expect(error.code).toBe('model_unavailable');
    expect(error.message).toMatch(/broke off while it streamed its reply/);
    expect(joined('text')).toBe('上海今天');
    expect(server.requests).toHaveLength(1);
  });

  it('fails a stream that ends cleanly after a delta with neither finish_reason nor [DONE]: a cut-off reply, never retried', async () => {
    const cutOff = { sse: textStream().sse.slice(0, 3), ending: 'end' } as const;
    const { model, server } = await modelAgainst([cutOff, textStream()]);
    const { request, joined } = watched();

    const error = await modelFailure(model.complete(request));

    expect(error.code).toBe('model_unavailable');
    expect(error.message).toMatch(/ended before the reply was complete/);
    expect(joined('text')).toBe('上海今天');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a stream that ends cleanly before any delta with neither finish_reason nor [DONE]', async () => {
    const { model, server } = await modelAgainst([{ ...firstEvents(callsOnly(), 3), ending: 'end' }, callsOnly()]);
    const { request, deltas } = watched();

    const reply = await model.complete(request);

    expect(reply.toolCalls).toEqual([{ id: 'call_U7223vIrlmpFRa36bSDdAbza', name: 'getWeather', arguments: '{"city":"上海"}' }]);
    expect(deltas).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('takes a stream with a finish_reason and no [DONE], or [DONE] and no finish_reason, as a whole reply', async () => {
    const noDone = { ...textStream(), ending: 'end' } as const;
    const noFinish = { sse: textStream().sse.filter((event) => !(event as { choices?: Array<{ finish_reason?: unknown }> }).choices?.some((choice) => choice.finish_reason)) };
    const { model, server } = await modelAgainst([noDone, noFinish]);

    expect((await model.complete(watched().request)).content).toBe('上海今天多云');
    expect((await model.complete(watched().request)).content).toBe('上海今天多云');
    expect(server.requests).toHaveLength(2);
  });

  it('retries an error event without a status (a provider failing mid-way) before any delta', async () => {
    const serverError = { raw: `event: error\ndata: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error' } })}` };
    const { model, server } = await modelAgainst([{ sse: [...firstEvents(callsOnly(), 2).sse, serverError], ending: 'end' }, textStream()]);

    const reply = await model.complete(watched().request);

    expect(reply.content).toBe('上海今天多云');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up with model_unavailable when every attempt breaks off, after maxRetries retries', async () => {
    const broken = { ...firstEvents(callsOnly(), 2), ending: 'reset' } as const;
    const { model, server } = await modelAgainst([broken, broken], { maxRetries: 1 });

    const error = await modelFailure(model.complete(watched().request));

    expect(error.code).toBe('model_unavailable');
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a rejected request reported mid-stream', async () => {
    const rejected = { raw: `event: error\ndata: ${JSON.stringify({ error: { message: 'bad schema', code: 'tool_use_failed', status_code: 400 } })}` };
    const { model, server } = await modelAgainst([{ sse: [rejected], ending: 'end' }, textStream()]);

    const error = await modelFailure(model.complete(watched().request));

    expect(error.code).toBe('model_rejected_request');
    expect(server.requests).toHaveLength(1);
  });

  it('fails with model_bad_response on a stream of malformed JSON', async () => {
    const { model } = await modelAgainst([{ sse: [{ raw: 'data: {"choices": [' }], ending: 'end' }]);

    expect((await modelFailure(model.complete(watched().request))).code).toBe('model_bad_response');
  });

  it('fails with model_bad_response on a stream that ends without any reply', async () => {
    const { model } = await modelAgainst([{ sse: [{ choices: [], usage: { prompt_tokens: 3, completion_tokens: 0 } }] }]);

    const error = await modelFailure(model.complete(watched().request));

    expect(error.code).toBe('model_bad_response');
    expect(error.message).toMatch(/ended its stream without a reply/);
  });

  it('counts usage as zero when the stream carries none', async () => {
    const body = textReply('ok');
    const { model } = await modelAgainst([streamedAsOpenAI({ ...body, usage: undefined })]);

    expect((await model.complete(watched().request)).usage).toEqual({ promptTokens: 0, completionTokens: 0 });
  });
});

describe('createOpenAIModel streaming time limits and cancellation', () => {
  const textStream = () => streamedAsOpenAI(textReply('上海今天多云'), { pieceLength: 2 });

  it('fails with model_timeout when the stream stalls after a delta, without retrying', async () => {
    const { model, server } = await modelAgainst([{ sse: textStream().sse.slice(0, 2), ending: 'hang' }, textStream()], { clientTimeoutMs: 400 });

    const error = await modelFailure(model.complete(watched().request));

    expect(error).toMatchObject({ code: 'model_timeout', timeout: true });
    expect(error.message).toMatch(/stopped streaming/);
    expect(server.requests).toHaveLength(1);
  }, 20_000);

  it('waits for each chunk up to the client timeout, not for the whole stream', async () => {
    // About 2 s of streaming in 150 ms steps, with 1 s allowed between chunks.
    const slow = { ...streamedAsOpenAI(textReply('上海今天多云，气温二十二度。'), { pieceLength: 1 }), delayMs: 150 };
    const { model } = await modelAgainst([slow], { clientTimeoutMs: 1_000, maxRetries: 0 });

    const reply = await model.complete(watched().request);

    expect(reply.content).toBe('上海今天多云，气温二十二度。');
  }, 20_000);

  it('retries a stream that stalls before any delta', async () => {
    const { model, server } = await modelAgainst([{ sse: textStream().sse.slice(0, 1), ending: 'hang' }, textStream()], { clientTimeoutMs: 400 });

    const reply = await model.complete(watched().request);

    expect(reply.content).toBe('上海今天多云');
    expect(server.requests).toHaveLength(2);
  }, 20_000);

  it('ends a stream at the call’s timeoutMs with timeout true, whatever arrived', async () => {
    const { model } = await modelAgainst([{ ...textStream(), delayMs: 200 }]);

    const error = await modelFailure(model.complete(watched({ timeoutMs: 500 }).request));

    expect(error).toMatchObject({ code: 'model_timeout', timeout: true });
  }, 20_000);

  it('ends a stream when the caller aborts, as model_aborted, never as a shorter reply', async () => {
    const { model } = await modelAgainst([{ ...textStream(), delayMs: 100 }]);
    const controller = new AbortController();
    const { request, deltas } = watched({ signal: controller.signal });

    const pending = modelFailure(model.complete(request));
    await vi.waitFor(() => expect(deltas.length).toBeGreaterThan(0), { timeout: 10_000 });
    controller.abort();

    expect(await pending).toMatchObject({ code: 'model_aborted', timeout: false });
  }, 20_000);

  it('treats a caller deadline signal (AbortSignal.timeout) as a timeout mid-stream', async () => {
    const { model } = await modelAgainst([{ ...textStream(), delayMs: 200 }]);

    const error = await modelFailure(model.complete(watched({ signal: AbortSignal.timeout(500) }).request));

    expect(error).toMatchObject({ code: 'model_timeout', timeout: true });
  }, 20_000);
});
