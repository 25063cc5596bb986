/**
 * The agent as an MCP server (agent.yml `mcpServerDoor`), called at /mcp of `npm start` by the MCP
 * SDK's own clients over Streamable HTTP: the v2 client (protocol revision 2026-07-28, stateless,
 * elicitation as input_required results) and the v1 client (2025, served statelessly), and by this
 * project's own MCP client: a second `npm start` that has the first one's /mcp as an MCP server.
 * The demo MCP server gives the first instance its tools; each instance's model is a scripted
 * OpenAI-compatible server. The scripted replies are consumed in order, so the tests run in order.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));
const CLIENT_INFO = { name: 'mcp-door-test', version: '1.0.0' };

type WireMessage = { role: string; content?: unknown; tool_call_id?: string };

describe('the MCP server front door, called by MCP clients over Streamable HTTP', () => {
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let folder: string;
  let firstConversation = '';
  const clients: Array<{ close(): Promise<void> }> = [];

  const modelMessages = (index: number) => (model.requests[index]!.body as { messages: WireMessage[] }).messages;

  /** The SDK's v2 client (it probes with server/discover and speaks 2026-07-28 when the server does). */
  async function modernClient(options: { elicitation?: boolean } = {}): Promise<Client> {
    const client = new Client(CLIENT_INFO, { capabilities: options.elicitation ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-mcp-door-'));
    const config = join(folder, 'agent.yml');
    writeFileSync(config, [
      'model: { maxRetries: 0 }',
      'mcpServerDoor: { toolName: ask_orders, toolDescription: "Ask the order desk about orders and the weather." }',
      'mcpServers:',
      `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}], requireApproval: destructive }`,
    ].join('\n'));
    model = await startScriptedOpenAIServer([
      // a turn with a tool round, with progress
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('上海今天晴。'),
      // the conversation continued
      textReply('明天多云。'),
      // an order to cancel: paused for approval, approved through elicitation
      toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]),
      textReply('订单 ORD20250514118567 已取消。'),
      // another, declined through elicitation
      toolCallsReply([{ id: 'call_cancel_3', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118569'] } }]),
      textReply('好的，订单 ORD20250514118569 不取消。'),
      // the same from a client that cannot be asked: the result says what waits
      toolCallsReply([{ id: 'call_cancel_2', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118568'] } }]),
      // … declined on the native route, and the turn ends
      textReply('好的，订单不取消。'),
      // the second instance's question, answered by this one
      textReply('北京今天有雨。'),
    ]);
    server = await startLocalServer({ AGENT_CONFIG: config, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo', LOCAL_DATA_DIR: join(folder, 'data') });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.stop();
    await model?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('lists one tool, named and described by agent.yml, with its input and output schemas', async () => {
    const client = await modernClient();
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    // npm start names the endpoint once it has checked its MCP servers, after it started listening.
    await vi.waitFor(() => expect(server.output()).toContain(`MCP clients: ${server.url}/mcp (Streamable HTTP), tool "ask_orders"`), { timeout: 30_000, interval: 50 });
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool).toMatchObject({ name: 'ask_orders', description: 'Ask the order desk about orders and the weather.' });
    expect(tool!.inputSchema).toMatchObject({ type: 'object', required: ['message'], properties: { message: { type: 'string' }, conversationId: { type: 'string' } } });
    expect(tool!.outputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['conversationId', 'reply', 'stopReason']) });

    // A 2025 client (the SDK's v1) is served too, statelessly.
    const legacy = new V1Client(CLIENT_INFO);
    await legacy.connect(new V1StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    clients.push(legacy);
    expect((await legacy.listTools()).tools.map((listed) => listed.name)).toEqual(['ask_orders']);
  });

  it('runs a turn: the reply as text, the turn result as structuredContent, each round and tool call as progress', async () => {
    // Prepare
    const client = await modernClient();
    const progress: Array<{ progress: number; message?: string }> = [];

    // Act
    const result = await client.callTool({ name: 'ask_orders', arguments: { message: '上海天气怎么样？' } }, { onprogress: (report) => progress.push(report) });

    // Assess
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: '上海今天晴。' }]);
    const turn = result.structuredContent as Record<string, any>;
    expect(turn).toMatchObject({ reply: '上海今天晴。', stopReason: 'completed', turn: 1, rounds: 2 });
    expect(turn.toolCalls).toMatchObject([{ name: 'getWeather', ok: true }]);
    firstConversation = turn.conversationId;
    expect(progress.map((report) => report.message)).toEqual([
      'round 1: asking the model',
      'round 1: calling getWeather',
      'round 1: getWeather answered',
      'round 2: asking the model',
    ]);
    expect(progress.map((report) => report.progress)).toEqual([1, 2, 3, 4]);
  });

  it('continues a conversation by its conversationId, and the model sees the earlier turn', async () => {
    const client = await modernClient();

    const result = await client.callTool({ name: 'ask_orders', arguments: { message: '明天呢？', conversationId: firstConversation } });

    expect(result.structuredContent).toMatchObject({ conversationId: firstConversation, turn: 2, reply: '明天多云。' });
    const messages = modelMessages(2);
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(messages[1]!.content).toBe('上海天气怎么样？');
    expect(messages[5]!.content).toBe('明天呢？');
  });

  it('asks a client that declared elicitation to approve a call, then lets the turn go on', async () => {
    // Prepare
    const client = await modernClient({ elicitation: true });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: {} };
    });

    // Act
    const result = await client.callTool({ name: 'ask_orders', arguments: { message: '取消订单 ORD20250514118567' } });

    // Assess
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('batchCancelOrdersByOrderNo');
    expect(asked[0]).toContain('ORD20250514118567');
    expect(result.structuredContent).toMatchObject({ stopReason: 'completed', reply: '订单 ORD20250514118567 已取消。' });
    expect((result.structuredContent as any).toolCalls).toMatchObject([{ name: 'batchCancelOrdersByOrderNo', ok: true }]);
    // The approved call ran: its result reached the model.
    const toolMessage = modelMessages(4).find((message) => message.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_cancel');
    expect(String(toolMessage?.content)).not.toMatch(/declined/i);
  });

  it('does not run a call the client declines when asked, and tells the model so', async () => {
    const client = await modernClient({ elicitation: true });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));

    const result = await client.callTool({ name: 'ask_orders', arguments: { message: '取消订单 ORD20250514118569' } });

    expect(result.structuredContent).toMatchObject({ stopReason: 'completed', reply: '好的，订单 ORD20250514118569 不取消。' });
    const toolMessage = modelMessages(6).find((message) => message.tool_call_id === 'call_cancel_3');
    expect(String(toolMessage?.content)).toMatch(/declined/i);
    expect(String(toolMessage?.content)).toContain('The user chose "decline"');
  });

  it('answers a client that cannot be asked with what waits and how to decide it', async () => {
    const client = await modernClient();

    const result = await client.callTool({ name: 'ask_orders', arguments: { message: '取消订单 ORD20250514118568' } });

    const turn = result.structuredContent as Record<string, any>;
    expect(turn).toMatchObject({ stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'call_cancel_2', name: 'batchCancelOrdersByOrderNo' }] });
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain('call_cancel_2');
    expect(text).toContain(`POST /conversations/${turn.conversationId}/approvals`);
    // The native route decides it, as the text says.
    const decided = await fetch(`${server.url}/conversations/${turn.conversationId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ toolCallId: 'call_cancel_2', approved: false, reason: 'not now' }] }),
    });
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({ stopReason: 'completed', reply: '好的，订单不取消。' });
  });

  it('is an MCP server to another instance of the service, through the project’s own MCP client', async () => {
    // Prepare: a second `npm start` whose agent.yml names the first one's /mcp
    const secondModel = await startScriptedOpenAIServer([
      toolCallsReply([{ id: 'call_ask', name: 'ask_orders', arguments: { message: '北京天气？' } }]),
      textReply('订单台说：北京今天有雨。'),
    ]);
    const secondConfig = join(folder, 'second.yml');
    writeFileSync(secondConfig, ['model: { maxRetries: 0 }', 'mcpServers:', `  orderDesk: { url: ${JSON.stringify(`${server.url}/mcp`)} }`].join('\n'));
    const second = await startLocalServer({ AGENT_CONFIG: secondConfig, OPENAI_BASE_URL: secondModel.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo', LOCAL_DATA_DIR: join(folder, 'second-data') });
    try {
      // Act
      const response = await fetch(`${second.url}/conversations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: '问问订单台北京天气' }) });

      // Assess
      const body = (await response.json()) as Record<string, any>;
      expect(response.status).toBe(201);
      expect(body).toMatchObject({ stopReason: 'completed', reply: '订单台说：北京今天有雨。', toolCalls: [{ name: 'ask_orders', ok: true }] });
      // The first instance ran its own turn for the question, and its answer is what the second one's model read.
      expect(modelMessages(9).at(-1)).toMatchObject({ role: 'user', content: '北京天气？' });
      const toolMessage = (secondModel.requests[1]!.body as { messages: WireMessage[] }).messages.find((message) => message.role === 'tool');
      expect(String(toolMessage?.content)).toContain('北京今天有雨。');
    } finally {
      await second.stop();
      await secondModel.close();
    }
  }, 60_000);
});
