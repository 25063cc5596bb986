/**
 * Structured answers (docs/structured-answers.md, "Over every door") through `npm start`, each door
 * called by its protocol's own client: the MCP SDK's client (the ask tool's `responseFormat`
 * argument, `output` in structuredContent), the A2A SDK's client (the message's
 * `metadata.responseFormat`, `output` as the reply artifact's data part), the AI SDK's transport
 * with readUIMessageStream (useChat's body field `responseFormat`, a `data-output` part) and AG-UI's
 * HttpAgent (`forwardedProps.responseFormat`, RUN_FINISHED's result). The scripted model answers
 * prose first, then JSON that validates: the second model call carries why the first was rejected.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageRequest, TaskState, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { HttpAgent } from '@ag-ui/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { demoServerYml, serversPerTest } from '../support/configured-local-server.ts';
import type { ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { textReply } from '../support/scripted-openai-server.ts';

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, summary: { type: 'string' } },
  required: ['city', 'summary'],
  additionalProperties: false,
};
const FORMAT = { type: 'json_schema', name: 'weather', schema: WEATHER };
const BAD_FORMAT = { type: 'json_schema', name: 'weather', schema: { type: 'strin' } };
const PROSE = 'It is sunny in Shanghai.';
const ANSWER = '{"city":"上海","summary":"晴"}';
const OUTPUT = { city: '上海', summary: '晴' };
const YML = `uiStreams: true\nmcpServerDoor: true\na2a: true\nmodel: { maxRetries: 0 }\n${demoServerYml()}`;

type WireMessage = { role: string; content?: string | null };

/** The model saw the format on each call, and its second call carries the rejected answer and why. */
function expectRejectedThenValid(model: ScriptedOpenAIServer): void {
  expect(model.requests).toHaveLength(2);
  for (const request of model.requests) expect((request.body as Record<string, unknown>).response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER } });
  const retry = (model.requests[1]!.body as { messages: WireMessage[] }).messages;
  expect(retry.at(-2)).toMatchObject({ role: 'assistant', content: PROSE });
  expect(retry.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/does not validate against the JSON Schema "weather": it is not JSON/) });
}

describe('structured answers over every door', () => {
  const servers = serversPerTest();

  it('MCP: the ask tool takes responseFormat and returns the parsed answer as structuredContent.output; a bad schema is a tool error', async () => {
    // Prepare
    const model = await servers.model([textReply(PROSE), textReply(ANSWER)]);
    const { server } = await servers.local(YML, model);
    const client = new Client({ name: 'structured-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));

    try {
      // Assess: the tool offers the argument.
      const { tools } = await client.listTools();
      expect(tools[0]!.inputSchema).toMatchObject({ properties: { responseFormat: { type: 'object' } } });

      // Act
      const result = await client.callTool({ name: 'ask', arguments: { message: '上海天气怎么样？', responseFormat: FORMAT } });

      // Assess
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: ANSWER }]);
      expect(result.structuredContent).toMatchObject({ stopReason: 'completed', rounds: 2, reply: ANSWER, output: OUTPUT });
      expectRejectedThenValid(model);

      // Act: a schema that is not JSON Schema.
      const refused = await client.callTool({ name: 'ask', arguments: { message: '上海天气怎么样？', responseFormat: BAD_FORMAT } });

      // Assess: refused before the model is called, with the native code.
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('(invalid_response_format)');
      expect(model.requests).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('A2A: metadata.responseFormat on the message, the parsed answer as a data part of the reply artifact; a bad schema is -32602', async () => {
    // Prepare
    const model = await servers.model([textReply(PROSE), textReply(ANSWER)]);
    const { server } = await servers.local(YML, model);
    const client = await new ClientFactory().createFromUrl(server.url);
    const send = (responseFormat: unknown) =>
      SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: '上海天气怎么样？' }], metadata: { responseFormat } } });

    // Act
    const task = (await client.sendMessage(send(FORMAT))) as Task;

    // Assess
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const parts: Part[] = task.artifacts[0]!.parts;
    expect(parts.map((part) => part.content)).toEqual([{ $case: 'text', value: ANSWER }, { $case: 'data', value: OUTPUT }]);
    expect(task.metadata?.mcpAgent).toMatchObject({ output: OUTPUT });
    expectRejectedThenValid(model);

    // Act + Assess: a bad schema is the request's error, with the native code in its metadata.
    const refused = await client.sendMessage(send(BAD_FORMAT)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RequestMalformedError);
    expect((refused as Error).message).toMatch(/not a valid JSON Schema/);
    expect(model.requests).toHaveLength(2);
  });

  it('AI SDK UI: useChat body field responseFormat, the answer whole at the end and parsed as a data-output part; a bad schema is a 400', async () => {
    // Prepare
    const model = await servers.model([textReply(PROSE), textReply(ANSWER)]);
    const { server } = await servers.local(YML, model);
    const transport = new DefaultChatTransport({ api: `${server.url}/ui/ai-sdk/chat`, body: { responseFormat: FORMAT } });
    const messages: UIMessage[] = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: '上海天气怎么样？' }] }];

    // Act
    const stream = await transport.sendMessages({ chatId: 'chat-structured', messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
    let message: UIMessage | undefined;
    for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true })) message = snapshot;

    // Assess: the rejected prose never reached the client.
    expect(message!.parts.filter((part) => part.type === 'text').map((part) => part.text)).toEqual([ANSWER]);
    expect(message!.parts.filter((part) => part.type === 'data-output')).toEqual([{ type: 'data-output', id: 'output', data: OUTPUT }]);
    expectRejectedThenValid(model);

    // Act + Assess: a bad schema, before any stream.
    const refused = await fetch(`${server.url}/ui/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'chat-bad', messages, responseFormat: BAD_FORMAT }) });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error.code).toBe('invalid_response_format');
  });

  it('AG-UI: forwardedProps.responseFormat, the answer whole at the end and parsed in RUN_FINISHED result.output; a bad schema is a 400', async () => {
    // Prepare
    const model = await servers.model([textReply(PROSE), textReply(ANSWER)]);
    const { server } = await servers.local(YML, model);
    const agent = new HttpAgent({ url: `${server.url}/ui/ag-ui`, threadId: 'thread-structured' });
    agent.addMessage({ id: 'u1', role: 'user', content: '上海天气怎么样？' });
    const events: Array<{ type: string; [field: string]: any }> = [];

    // Act
    await agent.runAgent({ runId: 'run-structured', forwardedProps: { responseFormat: FORMAT } }, { onEvent: ({ event }) => void events.push(event as never) });

    // Assess
    const finished = events.at(-1)!;
    expect(finished.type).toBe('RUN_FINISHED');
    expect(finished.result).toMatchObject({ stopReason: 'completed', reply: ANSWER, output: OUTPUT });
    expect(agent.messages.filter((message) => message.role === 'assistant').map((message: any) => message.content)).toEqual([ANSWER]);
    expectRejectedThenValid(model);

    // Act + Assess: a bad schema, before any stream.
    const refused = await fetch(`${server.url}/ui/ag-ui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: 'thread-bad', runId: 'run-bad', messages: [{ id: 'u1', role: 'user', content: 'hi' }], forwardedProps: { responseFormat: BAD_FORMAT } }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error).toMatchObject({ code: 'invalid_response_format', message: expect.stringContaining('not a valid JSON Schema') });
  });
});
