import { readFileSync } from 'node:fs';
import { APIError } from 'openai/core/error';
import { describe, expect, it, vi } from 'vitest';
import { createOpenAIClient } from '../../lib/adapters/openai/client.ts';
import { createOpenAIModel } from '../../lib/adapters/openai/model.ts';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/config/schema.ts';
import type { Message } from '../../lib/core/messages.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import type { ToolDefinition } from '../../lib/core/ports/tools.ts';
import {
  startScriptedOpenAIServer,
  textReply,
  toolCallsReply,
} from '../support/scripted-openai-server.ts';
import { modelFailure, modelsPerTest, QUICK_RETRY, TEST_API_KEY } from '../support/openai-model.ts';
import { openAIReasoning } from '../support/openai-reasoning.ts';
import { batchCancelOrdersByOrderNo, getWeather } from '../support/original-tools.ts';


/** Two tools of the original request, as the model must see them on the wire. */
const ORIGINAL_WIRE_TOOLS = [getWeather, batchCancelOrdersByOrderNo].map((tool) => ({ type: 'function', function: tool }));
const TOOLS: ToolDefinition[] = ORIGINAL_WIRE_TOOLS.map(({ function: tool }) => tool);
const MESSAGES: Message[] = [
  { role: 'system', content: DEFAULT_SYSTEM_PROMPT },
  { role: 'user', content: '取消订单ORD20250514118566，再查一下上海的天气' },
];

const modelAgainst = modelsPerTest('gpt-4-turbo');

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ messages: MESSAGES, tools: TOOLS, ...overrides });

describe('createOpenAIModel request', () => {
  it('sends the original request: system first, tools as functions, tool_choice auto, stream false', async () => {
    const { server, model } = await modelAgainst([textReply('好的')]);

    await model.complete(request());

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(server.requests[0]!.headers['authorization']).toBe(`Bearer ${TEST_API_KEY}`);
    expect(server.requests[0]!.body).toEqual({
      model: 'gpt-4-turbo',
      messages: [
        { role: 'system', content: DEFAULT_SYSTEM_PROMPT },
        { role: 'user', content: '取消订单ORD20250514118566，再查一下上海的天气' },
      ],
      tools: ORIGINAL_WIRE_TOOLS,
      tool_choice: 'auto',
      temperature: 0.7,
      stream: false,
    });
  });

  it('sends max_tokens only when it is configured', async () => {
    const { server, model } = await modelAgainst([textReply('ok')], { maxTokens: 256 });

    await model.complete(request());

    expect(server.requests[0]!.body).toMatchObject({ max_tokens: 256 });
  });

  it('sends neither tools nor tool_choice when there are no tools', async () => {
    const { server, model } = await modelAgainst([textReply('ok')]);

    await model.complete(request({ tools: [] }));

    expect(server.requests[0]!.body).not.toHaveProperty('tools');
    expect(server.requests[0]!.body).not.toHaveProperty('tool_choice');
  });

  it('works without an API key, for local endpoints such as Ollama or vLLM', async () => {
    const { server, model } = await modelAgainst([textReply('local')], { apiKey: '' });

    const reply = await model.complete(request());

    expect(reply.content).toBe('local');
    expect(server.requests[0]!.headers['authorization']).toMatch(/^Bearer \S+$/);
  });
});

describe('createOpenAIModel reply', () => {
  it('normalizes the gpt-4-turbo reply of the original request into its two calls and ids', async () => {
    const { model } = await modelAgainst([
      toolCallsReply([
        { id: 'call_7UjkvIZrlmpFRa36bSDdAbza', name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNo":"ORD20250514118566"}' },
        { id: 'call_U7223vIrlmpFRa36bSDdAbza', name: 'getWeather', arguments: '{"city":"上海"}' },
      ]),
    ]);

    const reply = await model.complete(request());

    expect(reply).toEqual({
      content: null,
      toolCalls: [
        { id: 'call_7UjkvIZrlmpFRa36bSDdAbza', name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNo":"ORD20250514118566"}' },
        { id: 'call_U7223vIrlmpFRa36bSDdAbza', name: 'getWeather', arguments: '{"city":"上海"}' },
      ],
      usage: { promptTokens: 188, completionTokens: 16 },
    });
  });

  it('sees the fields the SDK types do not declare: reasoning_content and object arguments', async () => {
    const { model } = await modelAgainst([
      {
        choices: [
          {
            message: {
              role: 'assistant',
              content: '',
              reasoning_content: 'The user wants the weather.',
              tool_calls: [{ id: 'call_00_a', type: 'function', function: { name: 'getWeather', arguments: { city: '上海' } } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
    ]);

    const reply = await model.complete(request());

    expect(openAIReasoning(reply)).toEqual({ field: 'reasoning_content', text: 'The user wants the weather.' });
    expect(reply.toolCalls).toEqual([{ id: 'call_00_a', name: 'getWeather', arguments: '{"city":"上海"}' }]);
  });

  const textCall = (content: string) => ({ choices: [{ message: { role: 'assistant', content, tool_calls: [] }, finish_reason: 'stop' }] });
  const HERMES_CALL = '<tool_call>\n{"name": "getWeather", "arguments": {"city": "上海"}}\n</tool_call>';

  it('turns a tool call a server wrote as text (vLLM without a tool parser) into a call, when model.textToolCalls is on', async () => {
    const { model } = await modelAgainst([textCall(`<think>\nweather\n</think>\n\n${HERMES_CALL}`)], { textToolCalls: true });

    const reply = await model.complete(request());

    expect(reply.content).toBeNull();
    expect(openAIReasoning(reply)).toEqual({ field: 'reasoning_content', text: 'weather' });
    expect(reply.toolCalls).toEqual([{ id: expect.stringMatching(/^call_[A-Za-z0-9]{24}$/), name: 'getWeather', arguments: '{"city":"上海"}' }]);
  });

  it('leaves tool calls written as text as text when model.textToolCalls is off (the default)', async () => {
    const { model } = await modelAgainst([textCall(HERMES_CALL)]);
    const reply = await model.complete(request());
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toBe(HERMES_CALL);
  });

  it('runs nothing a reply quotes inside prose, even with model.textToolCalls on', async () => {
    const prose = `To cancel, the model would write ${HERMES_CALL} and the service would run it.`;
    const { model } = await modelAgainst([textCall(prose)], { textToolCalls: true });
    const reply = await model.complete(request());
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toBe(prose);
  });

  it.each([
    ['a body that is not JSON', { status: 200, body: '<html>502 Bad Gateway</html>' }],
    ['an error envelope with status 200', { status: 200, body: { error: { message: 'upstream overloaded' } } }],
  ])('fails with model_bad_response on %s', async (_label, step) => {
    const { model } = await modelAgainst([step]);

    const error = await modelFailure(model.complete(request()));

    expect(error.code).toBe('model_bad_response');
  });
});

describe('createOpenAIModel retries (the SDK’s own)', () => {
  it('retries a 500 and succeeds', async () => {
    const { server, model } = await modelAgainst([
      { status: 500, body: { error: { message: 'The server had an error' } }, headers: QUICK_RETRY },
      textReply('recovered'),
    ]);

    const reply = await model.complete(request());

    expect(reply.content).toBe('recovered');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 429 rate_limit_exceeded and succeeds', async () => {
    const rateLimited = { message: 'Rate limit reached for gpt-4-turbo', type: 'requests', code: 'rate_limit_exceeded' };
    const { server, model } = await modelAgainst([
      { status: 429, body: { error: rateLimited }, headers: QUICK_RETRY },
      textReply('after the limit'),
    ]);

    const reply = await model.complete(request());

    expect(reply.content).toBe('after the limit');
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 429 insufficient_quota and reports model_quota_exceeded', async () => {
    const quota = {
      message: 'You exceeded your current quota, please check your plan and billing details.',
      type: 'insufficient_quota',
      param: null,
      code: 'insufficient_quota',
    };
    const { server, model } = await modelAgainst([
      { status: 429, body: { error: quota }, headers: QUICK_RETRY },
      textReply('must never be reached'),
    ]);

    const error = await modelFailure(model.complete(request()));

    expect(server.requests).toHaveLength(1);
    expect(error.code).toBe('model_quota_exceeded');
    expect(error.message).toContain('HTTP 429');
    // The provider's words are for the log (detail), never for the caller.
    expect(error.message).not.toContain(quota.message);
    expect(error.detail).toContain(quota.message);
    expect(error.cause).toBeInstanceOf(APIError);
  });

  it('does not retry a 401 and reports model_auth_failed without the key or the prompt', async () => {
    const { server, model } = await modelAgainst([
      {
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${TEST_API_KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' } },
        headers: QUICK_RETRY,
      },
    ]);

    const error = await modelFailure(model.complete(request()));

    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ code: 'model_auth_failed', timeout: false });
    expect(error.message).not.toContain('Incorrect API key provided');
    expect(error.detail).toContain('Incorrect API key provided');
    expect(error.message).not.toContain(TEST_API_KEY);
    expect(error.detail).not.toContain(TEST_API_KEY);
    expect(error.message).not.toContain(MESSAGES[1]!.content);
  });

  it('reports model_unavailable once the retries of a 503 are used up', async () => {
    const unavailable = { status: 503, body: { error: { message: 'Service Unavailable' } }, headers: QUICK_RETRY };
    const { server, model } = await modelAgainst([unavailable, unavailable, unavailable], { maxRetries: 2 });

    const error = await modelFailure(model.complete(request()));

    expect(server.requests).toHaveLength(3);
    expect(error.code).toBe('model_unavailable');
    expect(error.message).toContain('HTTP 503');
    expect(error.detail).toBe('HTTP 503: Service Unavailable');
  });

  it('reports model_unavailable with the reason when nothing listens at the endpoint', async () => {
    const closed = await startScriptedOpenAIServer([]);
    await closed.close();
    const client = createOpenAIClient({ baseURL: closed.baseURL, apiKey: TEST_API_KEY, maxRetries: 0, timeoutMs: 5_000 });
    const model = createOpenAIModel({ client, model: 'gpt-4-turbo', temperature: 0.7 });

    const error = await modelFailure(model.complete(request()));

    expect(error.code).toBe('model_unavailable');
    expect(error.message).toContain('ECONNREFUSED');
  });
});

/** Recorded provider errors; the status comes from the recording or, when not recorded, its file name. */
const recordedError = (file: string) => {
  const recording = JSON.parse(readFileSync(new URL(`../fixtures/llm/${file}`, import.meta.url), 'utf8'));
  const status: number = recording.response_status ?? Number(/error-(\d{3})-/.exec(file)![1]);
  return { status, body: recording.response, message: String(recording.response.error.message) };
};

describe('createOpenAIModel on recorded provider errors', () => {
  it.each([
    ['groq/error-400-tool_use_failed.json', 'model_rejected_request', 1],
    ['openai/error-400-unsupported_value.json', 'model_rejected_request', 1],
    ['openai/error-400-max_tokens-unsupported-on-reasoning-model.json', 'model_rejected_request', 1],
    ['openrouter/error-429-upstream-rate-limited.json', 'model_rate_limited', 3],
  ])('maps %s to %s after %i request(s), the provider quoted for the log only', async (file, code, requestCount) => {
    const { status, body, message } = recordedError(file);
    const step = { status, body, headers: QUICK_RETRY };
    const { server, model } = await modelAgainst([step, step, step], { maxRetries: 2 });

    const error = await modelFailure(model.complete(request()));

    expect(error.code).toBe(code);
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).not.toContain(message);
    expect(error.detail).toContain(`HTTP ${status}: ${message}`);
    expect(server.requests).toHaveLength(requestCount);
  });

  it.each([
    [
      'vLLM’s top-level error',
      { object: 'error', message: "This model's maximum context length is 16384 tokens. However, you requested 19591 tokens.", type: 'BadRequestError', param: null, code: 400 },
      "This model's maximum context length is 16384 tokens",
    ],
    [
      'Gemini’s error array',
      [{ error: { code: 400, message: 'Please ensure that the number of function response parts is equal to the number of function call parts.', status: 'INVALID_ARGUMENT' } }],
      'Please ensure that the number of function response parts',
    ],
  ])('quotes the provider message from %s for the log', async (_label, body, expected) => {
    const { model } = await modelAgainst([{ status: 400, body }]);

    const error = await modelFailure(model.complete(request()));

    expect(error.code).toBe('model_rejected_request');
    expect(error.detail).toContain(`HTTP 400: ${expected}`);
    expect(error.message).not.toContain(expected);
  });
});

describe('createOpenAIModel time limits and cancellation', () => {
  it('fails with timeout true when the model answers later than timeoutMs', async () => {
    const { model } = await modelAgainst([{ status: 200, body: textReply('too late'), delayMs: 60_000 }]);

    const error = await modelFailure(model.complete(request({ timeoutMs: 300 })));

    expect(error).toMatchObject({ code: 'model_timeout', timeout: true });
  }, 15_000);

  it('counts the waits between retries against timeoutMs', async () => {
    // The SDK would wait 5 s and then succeed; the call's 300 ms budget ends during the wait.
    const { server, model } = await modelAgainst([
      { status: 503, body: { error: { message: 'busy' } }, headers: { 'retry-after-ms': '5000' } },
      textReply('too late'),
    ]);

    const error = await modelFailure(model.complete(request({ timeoutMs: 300 })));

    expect(error).toMatchObject({ code: 'model_timeout', timeout: true });
    expect(server.requests).toHaveLength(1);
  }, 15_000);

  it('fails with timeout true when one attempt exceeds the client timeout', async () => {
    const { model } = await modelAgainst([{ status: 200, body: textReply('too late'), delayMs: 60_000 }], {
      maxRetries: 0,
      clientTimeoutMs: 300,
    });

    const error = await modelFailure(model.complete(request()));

    expect(error).toMatchObject({ code: 'model_timeout', timeout: true });
  }, 15_000);

  it('rejects promptly when the caller aborts, without calling it a timeout', async () => {
    const { server, model } = await modelAgainst([{ status: 200, body: textReply('too late'), delayMs: 60_000 }]);
    const controller = new AbortController();

    const pending = modelFailure(model.complete(request({ signal: controller.signal, timeoutMs: 60_000 })));
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort();
    const error = await pending;

    expect(error).toMatchObject({ code: 'model_aborted', timeout: false });
  }, 15_000);

  it('treats a caller deadline signal (AbortSignal.timeout) as a timeout', async () => {
    const { model } = await modelAgainst([{ status: 200, body: textReply('too late'), delayMs: 60_000 }]);

    const error = await modelFailure(model.complete(request({ signal: AbortSignal.timeout(300) })));

    expect(error).toMatchObject({ code: 'model_timeout', timeout: true });
  }, 15_000);
});
