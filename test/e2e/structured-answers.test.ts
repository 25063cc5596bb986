/**
 * Structured answers (docs/structured-answers.md) through `npm start`, with the scripted model
 * server as the agent's OpenAI-compatible model: the format reaches the wire as OpenAI's native
 * `response_format`, an answer that does not validate is sent back with its problems, the result
 * carries `output`, and the stored history holds only the answer that validated.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { demoServerYml, getJson, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';
import { postForEvents } from '../support/sse-client.ts';
import { answered, systemPromptOf } from '../support/wire-requests.ts';

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, summary: { type: 'string' } },
  required: ['city', 'summary'],
  additionalProperties: false,
};
const FORMAT = { type: 'json_schema', name: 'weather', schema: WEATHER, strict: true };
const ANSWER = '{"city":"上海","summary":"晴"}';

type WireMessage = { role: string; content?: string | null };
const sentMessages = (request: { body: unknown }) => (request.body as { messages: WireMessage[] }).messages;

describe('structured answers through npm start', () => {
  const servers = serversPerTest();

  it('sends an answer that is not JSON back with the problem, and returns the one that validates as output', async () => {
    const model = await servers.model([textReply('It is sunny in Shanghai.'), textReply(ANSWER)]);
    const { server } = await servers.local(demoServerYml(), model);

    const turn = await postJson(`${server.url}/conversations`, { message: '上海天气怎么样？', responseFormat: FORMAT });

    expect(turn.status).toBe(201);
    expect(turn.body).toMatchObject({ stopReason: 'completed', rounds: 2, reply: ANSWER, output: { city: '上海', summary: '晴' } });
    // The provider's native structured output reached the wire, on every call.
    for (const request of model.requests) {
      expect((request.body as Record<string, unknown>).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER, strict: true } });
    }
    // The second call carries the rejected answer and why it was rejected.
    const retry = sentMessages(model.requests[1]!);
    expect(retry.at(-2)).toMatchObject({ role: 'assistant', content: 'It is sunny in Shanghai.' });
    expect(retry.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/does not validate against the JSON Schema "weather": it is not JSON/) });
    // Stored: the question and the answer that validated, nothing of the rejected one.
    const stored = await getJson(`${server.url}/conversations/${turn.body.conversationId}`);
    expect(stored.body.turns[0].messages.map((message: WireMessage) => [message.role, message.content])).toEqual([['user', '上海天气怎么样？'], ['assistant', ANSWER]]);
  });

  it('runs the tool rounds first, then checks the final answer, naming the missing property', async () => {
    const model = await servers.model([
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('{"city":"上海"}'),
      textReply(ANSWER),
    ]);
    const { server } = await servers.local(demoServerYml(), model);

    const turn = await postJson(`${server.url}/conversations`, { message: '上海天气怎么样？', responseFormat: FORMAT });

    expect(turn.body).toMatchObject({ stopReason: 'completed', rounds: 3, output: { city: '上海', summary: '晴' }, toolCalls: [{ name: 'getWeather', ok: true }] });
    expect((model.requests[0]!.body as { tools?: unknown[] }).tools?.length).toBeGreaterThan(0);
    expect(sentMessages(model.requests[2]!).at(-1)?.content).toMatch(/must have required property 'summary'/);
    const stored = await getJson(`${server.url}/conversations/${turn.body.conversationId}`);
    expect(stored.body.turns[0].messages.map((message: WireMessage) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(stored.body.turns[0].messages.at(-1).content).toBe(ANSWER);
  });

  it('ends invalid_output when the answer in the last round still does not validate', async () => {
    const model = await servers.model([textReply('sunny'), textReply('{"city":"上海"}')]);
    const { server } = await servers.local(`maxRounds: 2\n${demoServerYml()}`, model);

    const turn = await postJson(`${server.url}/conversations`, { message: '上海天气怎么样？', responseFormat: FORMAT });

    expect(turn.status).toBe(201);
    expect(turn.body).toMatchObject({ stopReason: 'invalid_output', rounds: 2, error: { code: 'output_invalid', message: expect.stringContaining("must have required property 'summary'") } });
    expect(turn.body.output).toBeUndefined();
    expect(model.requests).toHaveLength(2);
  });

  it('keeps the format through a pause for approval: the resumed turn checks its answer, and the next turn has none', async () => {
    const cancelled = { type: 'object', properties: { cancelled: { type: 'array', items: { type: 'string' } } }, required: ['cancelled'] };
    const model = await servers.model([
      toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]),
      textReply('Done, it is cancelled.'),
      textReply('{"cancelled":["ORD20250514118567"]}'),
      textReply('You are welcome.'),
    ]);
    const { server } = await servers.local(demoServerYml(', requireApproval: destructive'), model);

    const paused = await postJson(`${server.url}/conversations/structured-approval/messages`, { message: 'Cancel ORD20250514118567', responseFormat: { type: 'json_schema', name: 'cancellation', schema: cancelled } });
    const resumed = await postJson(`${server.url}/conversations/structured-approval/approvals`, { decisions: [{ toolCallId: 'call_cancel', approved: true }] });
    const later = await postJson(`${server.url}/conversations/structured-approval/messages`, { message: 'Thanks!' });

    expect(paused.body).toMatchObject({ stopReason: 'approval_required' });
    expect(resumed.body).toMatchObject({ stopReason: 'completed', output: { cancelled: ['ORD20250514118567'] } });
    expect(sentMessages(model.requests[2]!).at(-1)?.content).toMatch(/"cancellation": it is not JSON/);
    expect((model.requests[2]!.body as Record<string, unknown>).response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'cancellation' } });
    expect(later.body).toMatchObject({ stopReason: 'completed', reply: 'You are welcome.' });
    expect(later.body.output).toBeUndefined();
    expect((model.requests[3]!.body as Record<string, unknown>).response_format).toBeUndefined();
  });

  it('with plan-execute, asks only the summary for the format: the planner and the executor answer in their own words', async () => {
    const model = await servers.model((body) => {
      const system = systemPromptOf(body);
      if (system.includes('## Planning')) return answered(body, 'planning') ? textReply('planned') : toolCallsReply([{ id: 'plan_1', name: 'planning', arguments: { action: 'create', tasks: [{ title: '查上海天气' }] } }]);
      if (system.includes('## Your task')) return textReply('上海：晴');
      return textReply(ANSWER);
    });
    const { server } = await servers.local(`strategy: plan-execute\nmaxRounds: 10\nmodel: { maxRetries: 0 }\n${demoServerYml()}`, model);

    const turn = await postJson(`${server.url}/conversations`, { message: '上海天气怎么样？', responseFormat: FORMAT });

    expect(turn.body).toMatchObject({ stopReason: 'completed', reply: ANSWER, output: { city: '上海', summary: '晴' } });
    const withFormat = model.requests.map((request) => [systemPromptOf(request.body as never).includes('## Final answer'), (request.body as Record<string, unknown>).response_format !== undefined]);
    expect(withFormat.filter(([summary]) => summary)).toEqual([[true, true]]);
    expect(withFormat.filter(([summary]) => !summary).every(([, format]) => !format)).toBe(true);
  });

  it.each([
    ['a schema that is not JSON Schema', { ...FORMAT, schema: { type: 'strin' } }, /not a valid JSON Schema/],
    ['a format of another type', { type: 'xml', name: 'weather', schema: WEATHER }, /"type": "json_schema"/],
    ['a format without a schema', { type: 'json_schema', name: 'weather' }, /"schema"/],
  ])('refuses %s with 400 invalid_response_format, before any model call', async (_case, responseFormat, message) => {
    const model = await servers.model([textReply('never')]);
    const { server } = await servers.local(demoServerYml(), model);

    const turn = await postJson(`${server.url}/conversations`, { message: 'hi', responseFormat });

    expect(turn.status).toBe(400);
    expect(turn.body.error).toMatchObject({ code: 'invalid_response_format', message: expect.stringMatching(message) });
    expect(model.requests).toHaveLength(0);
  });

  it('streams the answer as text-delta events and carries output in turn-end', async () => {
    const model = await servers.model([textReply('not json'), textReply(ANSWER)]);
    const { server } = await servers.local(demoServerYml(), model);

    const exchange = await postForEvents(`${server.url}/conversations/structured-stream/messages`, { body: { message: '上海天气怎么样？', responseFormat: FORMAT } });

    const deltas = exchange.events.filter((event) => event.event === 'text-delta').map((event) => event.data as { round: number; text: string });
    expect(deltas.filter((delta) => delta.round === 2).map((delta) => delta.text).join('')).toBe(ANSWER);
    const turnEnd = exchange.events.find((event) => event.event === 'turn-end')?.data;
    expect(turnEnd).toMatchObject({ stopReason: 'completed', output: { city: '上海', summary: '晴' } });
  });

  it('answers /v1 response_format through the openai client with the JSON alone as the content', async () => {
    const model = await servers.model([textReply('Sunny.'), textReply(ANSWER), textReply(ANSWER)]);
    const { server } = await servers.local(`openaiApi: { modelId: order-desk }\n${demoServerYml()}`, model);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const responseFormat = { type: 'json_schema' as const, json_schema: { name: 'weather', schema: WEATHER, strict: true } };

    const completion = await client.chat.completions.create({ model: 'order-desk', messages: [{ role: 'user', content: '上海天气怎么样？' }], response_format: responseFormat });
    const streamed = await client.chat.completions.create({ model: 'order-desk', messages: [{ role: 'user', content: '上海天气怎么样？' }], response_format: responseFormat, stream: true });
    let streamedText = '';
    for await (const chunk of streamed) streamedText += chunk.choices[0]?.delta.content ?? '';

    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ city: '上海', summary: '晴' });
    expect((completion as unknown as { mcp_agent: { output: unknown; rounds: number } }).mcp_agent).toMatchObject({ output: { city: '上海', summary: '晴' }, rounds: 2 });
    // Streamed, only the answer that validated is sent: never the rejected text before it.
    expect(streamedText).toBe(ANSWER);
    expect((model.requests[0]!.body as Record<string, unknown>).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER, strict: true } });
  });

  it('refuses a /v1 response_format whose schema is not JSON Schema with 400, naming the parameter', async () => {
    const model = await servers.model([textReply('never')]);
    const { server } = await servers.local(demoServerYml(), model);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });

    const refused = await client.chat.completions
      .create({ model: 'mcp-agent', messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: { type: 'strin' } } } })
      .catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ status: 400, code: 'invalid_response_format', param: 'response_format' });
    expect(model.requests).toHaveLength(0);
  });
});
