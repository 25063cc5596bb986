/**
 * The OpenAI-compatible front door through the official `openai` npm client, a caller nobody here
 * wrote, against `npm start` as its own process: the demo MCP server for tools, and the scripted
 * OpenAI-compatible server as the agent's model (it streams its scripted completions when the agent
 * asks for a stream). The scripted replies are consumed in order, so the tests run in order.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI, { APIError, BadRequestError, InternalServerError, NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));
const MODEL_ID = 'order-desk';

/** What the front door adds to OpenAI's shapes. */
type WithAgent<T> = T & { mcp_agent: Record<string, any> };
type WireMessage = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown[] };

describe('the OpenAI-compatible front door, called by the openai npm client', () => {
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let folder: string;
  let client: OpenAI;
  /** The conversation the stateless test stored, continued later by header. */
  let storedConversation = '';

  const modelMessages = (index: number) => (model.requests[index]!.body as { messages: WireMessage[] }).messages;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-openai-client-'));
    const config = join(folder, 'agent.yml');
    writeFileSync(config, [
      'model: { maxRetries: 0 }',
      `openaiApi: { modelId: ${MODEL_ID} }`,
      'mcpServers:',
      `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}], requireApproval: destructive }`,
    ].join('\n'));
    model = await startScriptedOpenAIServer([
      // create, not streamed: a tool round, then the answer
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('上海今天天气不错。'),
      // create, streamed: the same again
      toolCallsReply([{ id: 'call_weather_2', name: 'getWeather', arguments: { city: '北京' } }]),
      textReply('北京今天也不错。'),
      // .stream() continuing the first conversation by header
      textReply('明天多云。'),
      // an order to cancel: paused for approval, then approved through the native route
      toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]),
      textReply('订单 ORD20250514118567 已取消。'),
      // a model that fails (500): the agent answers 502 and tells the client not to retry
      { status: 500, body: { error: { message: 'upstream exploded', type: 'server_error', param: null, code: null } } },
      // a tool round, then a model that fails: the turn is stored with stopReason error
      toolCallsReply([{ id: 'call_weather_3', name: 'getWeather', arguments: { city: '广州' } }]),
      { status: 500, body: { error: { message: 'upstream exploded', type: 'server_error', param: null, code: null } } },
    ]);
    server = await startLocalServer({ AGENT_CONFIG: config, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo', LOCAL_DATA_DIR: join(folder, 'data') });
    // The SDK's defaults (two retries included): what a user's code runs with.
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'anything' });
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('lists the agent as the model of agent.yml’s openaiApi.modelId', async () => {
    const models = [];
    for await (const listed of client.models.list()) models.push(listed);
    expect(models).toEqual([{ id: MODEL_ID, object: 'model', created: expect.any(Number), owned_by: 'mcp-agent' }]);
    expect(await client.models.retrieve(MODEL_ID)).toMatchObject({ id: MODEL_ID, object: 'model' });
  });

  it('answers chat.completions.create with the agent’s turn, storing the client’s messages as a new conversation', async () => {
    // Act
    const { data, response } = await client.chat.completions
      .create({
        model: MODEL_ID,
        messages: [
          { role: 'system', content: 'Answer in Chinese.' },
          { role: 'user', content: '你好' },
          { role: 'assistant', content: '你好！有什么可以帮你？' },
          { role: 'user', content: '上海天气怎么样？' },
        ],
        temperature: 0.3,
      })
      .withResponse();

    // Assess: the SDK's own types, filled as OpenAI fills them.
    const completion = data as WithAgent<typeof data>;
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(MODEL_ID);
    expect(completion.choices).toEqual([{ index: 0, message: { role: 'assistant', content: '上海今天天气不错。', refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }]);
    expect(completion.usage).toEqual({ prompt_tokens: 380, completion_tokens: 187, total_tokens: 567 });
    // The tool round the agent ran through the demo MCP server.
    expect(completion.mcp_agent).toMatchObject({ turn: 1, stopReason: 'completed', rounds: 2, toolCalls: [{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' }, ok: true }] });
    storedConversation = completion.mcp_agent.conversationId;
    expect(response.headers.get('x-conversation-id')).toBe(storedConversation);
    // The model saw the configured prompt plus the client's instructions, the client's history, the question.
    const sent = modelMessages(0);
    expect(sent[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/\n\nAnswer in Chinese\.$/) });
    expect(sent.slice(1)).toEqual([{ role: 'user', content: '你好' }, { role: 'assistant', content: '你好！有什么可以帮你？' }, { role: 'user', content: '上海天气怎么样？' }]);
    // The tool's real answer went back to the model.
    expect(modelMessages(1).find((message) => message.tool_call_id === 'call_weather')?.content).toMatch(/上海/);
    // And the turn is stored under the new conversation, the client's history first.
    const stored = (await (await fetch(`${server.url}/conversations/${storedConversation}`)).json()) as { turns: Array<{ messages: WireMessage[] }> };
    expect(stored.turns).toHaveLength(1);
    expect(stored.turns[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
  });

  it('streams chat.completions.create with stream: true, the tool activity in mcp_agent and the usage last', async () => {
    // Act
    const { data: stream, response } = await client.chat.completions
      .create({ model: MODEL_ID, messages: [{ role: 'user', content: '北京天气怎么样？' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const chunks: Array<WithAgent<OpenAI.Chat.Completions.ChatCompletionChunk>> = [];
    for await (const chunk of stream) chunks.push(chunk as WithAgent<OpenAI.Chat.Completions.ChatCompletionChunk>);

    // Assess
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('北京今天也不错。');
    // The model streamed to the agent, the agent to the client: the answer came in pieces.
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
    const activity = chunks.filter((chunk) => chunk.mcp_agent).map((chunk) => chunk.mcp_agent.event);
    expect(activity).toEqual(['turn-start', 'round-start', 'tool-call', 'tool-result', 'round-start', 'turn-end']);
    expect(chunks.find((chunk) => chunk.mcp_agent?.event === 'tool-result')!.mcp_agent.data).toMatchObject({ round: 1, id: 'call_weather_2', name: 'getWeather', ok: true });
    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason);
    expect(finish!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 380, completion_tokens: 187, total_tokens: 567 } });
    const conversationId = chunks[0]!.mcp_agent.data.conversationId;
    expect(response.headers.get('x-conversation-id')).toBe(conversationId);
    expect(conversationId).not.toBe(storedConversation);
    expect((await fetch(`${server.url}/conversations/${conversationId}`)).status).toBe(200);
  });

  it('continues the stored conversation named by X-Conversation-Id, through the .stream() helper', async () => {
    // Act
    const pieces: string[] = [];
    const stream = client.chat.completions
      .stream({ model: MODEL_ID, messages: [{ role: 'user', content: '明天呢？' }] }, { headers: { 'X-Conversation-Id': storedConversation } })
      .on('content', (delta) => pieces.push(delta));
    const completion = await stream.finalChatCompletion();

    // Assess
    expect(completion.choices[0]!.message.content).toBe('明天多云。');
    expect(pieces.join('')).toBe('明天多云。');
    // The helper keeps the last chunk's mcp_agent on the completion it assembles: the turn's end.
    expect((completion as WithAgent<typeof completion>).mcp_agent).toMatchObject({ event: 'turn-end', data: { conversationId: storedConversation, turn: 2 } });
    // The model saw the stored conversation (the first turn, its tool round included), then the question.
    const sent = modelMessages(4);
    expect(sent.slice(1).map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent.at(-1)).toEqual({ role: 'user', content: '明天呢？' });
  });

  it('shows an approval pause in mcp_agent; the native approvals route then resumes the turn', async () => {
    const paused = (await client.chat.completions.create({ model: MODEL_ID, messages: [{ role: 'user', content: '取消订单 ORD20250514118567' }] })) as WithAgent<OpenAI.Chat.Completions.ChatCompletion>;

    expect(paused.choices[0]!.finish_reason).toBe('stop');
    expect(paused.choices[0]!.message.content).toMatch(/^I need your approval before I run batchCancelOrdersByOrderNo \(call_cancel\)/);
    expect(paused.mcp_agent).toMatchObject({
      stopReason: 'approval_required',
      pendingApprovals: [{ toolCallId: 'call_cancel', name: 'batchCancelOrdersByOrderNo', server: 'demo', arguments: { orderNos: ['ORD20250514118567'] } }],
    });
    const resumed = await fetch(`${server.url}/conversations/${paused.mcp_agent.conversationId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ toolCallId: 'call_cancel', approved: true }] }),
    });
    expect(await resumed.json()).toMatchObject({ stopReason: 'completed', reply: '订单 ORD20250514118567 已取消。' });
  });

  it.each([
    ['a model it does not serve', { model: 'gpt-4o' }, NotFoundError, 404, 'model_not_found', 'model'],
    ['client-side tools', { tools: [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }] }, BadRequestError, 400, 'unsupported_parameter', 'tools'],
    ['an image', { messages: [{ role: 'user' as const, content: [{ type: 'image_url' as const, image_url: { url: 'https://example.com/a.png' } }] }] }, BadRequestError, 400, 'unsupported_content', 'messages[0].content[0].type'],
  ])('raises %s as the SDK’s APIError with its status and code, streamed or not', async (_, change, errorClass, status, code, param) => {
    const requestsBefore = model.requests.length;
    const body = { model: MODEL_ID, messages: [{ role: 'user' as const, content: 'hi' }], ...change };
    for (const stream of [false, true]) {
      const error = await client.chat.completions.create({ ...body, stream } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming).then(() => undefined, (failure: unknown) => failure);
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toMatchObject({ status, code, param, type: 'invalid_request_error' });
    }
    expect(model.requests.length).toBe(requestsBefore);
  });

  it('raises a model failure as a 502 APIError, which the SDK does not retry (the service already did)', async () => {
    const requestsBefore = model.requests.length;
    const error = await client.chat.completions.create({ model: MODEL_ID, messages: [{ role: 'user', content: 'hi' }] }).then(() => undefined, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 502, code: 'model_unavailable', type: 'server_error' });
    // One request reached the model: the SDK (two retries by default) obeyed x-should-retry: false.
    expect(model.requests.length).toBe(requestsBefore + 1);
  });

  it('answers a turn stored after the model failed as a completion saying so, which the SDK takes as it is and never sends again', async () => {
    const requestsBefore = model.requests.length;
    const { data, response } = await client.chat.completions.create({ model: MODEL_ID, messages: [{ role: 'user', content: '广州天气' }] }).withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(data.choices[0]!.message.content).toMatch(/could not finish/);
    expect((data as unknown as { mcp_agent: Record<string, unknown> }).mcp_agent).toMatchObject({ stopReason: 'error', error: { code: 'model_unavailable' }, toolCalls: [{ name: 'getWeather', ok: true }] });
    // The tool round and the failed call, once each.
    expect(model.requests.length).toBe(requestsBefore + 2);
  });
});
