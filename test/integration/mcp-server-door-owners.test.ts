/**
 * The MCP server door between owners: the MCP SDK's client speaks to the door's handle() through a
 * fetch that sets `request.owner`, as the auth layer does for an identified caller (IAM or
 * Cognito, lib/http/lambda), so each owner sees only its own conversations, as on the native API.
 * The door comes from configuredFrontDoors, so agent.yml's switch is what puts it there.
 */
import { Readable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/core/logger.ts';
import { configuredFrontDoors } from '../../lib/front-doors/configured.ts';
import type { FrontDoor, FrontDoorServices } from '../../lib/http/front-door.ts';
import { isEventStreamResponse } from '../../lib/http/event-stream.ts';
import { textReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

const CLIENT_INFO = { name: 'owner-test', version: '1.0.0' };

/** A fetch that hands each request to the door as the auth layer would: with the caller's identity as its owner. */
function fetchAs(owner: string, door: FrontDoor, services: FrontDoorServices, onStreamText: (text: string) => void = () => undefined): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const response = await door.handle({ method: init?.method ?? 'GET', path: url.pathname, headers, body, owner }, services);
    if (!isEventStreamResponse(response)) return new Response(response.statusCode === 202 || response.body === '' ? null : response.body, { status: response.statusCode, headers: response.headers });
    const decoder = new TextDecoder();
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onStreamText(decoder.decode(chunk, { stream: true }));
        controller.enqueue(chunk);
      },
    });
    return new Response((Readable.toWeb(response.body) as ReadableStream<Uint8Array>).pipeThrough(tap), { status: 200, headers: response.headers });
  };
}

describe('the MCP server door, between owners', () => {
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });

  function doorOf(yaml: string): FrontDoor | undefined {
    return configuredFrontDoors(agentFixture(null, { yaml }).config).find((door) => door.name === 'mcp-server');
  }

  it('is not served unless agent.yml turns it on', () => {
    expect(doorOf('maxRounds: 4')).toBeUndefined();
    expect(doorOf('mcpServerDoor: false')).toBeUndefined();
    expect(doorOf('mcpServerDoor: true')?.matches({ method: 'POST', path: '/mcp' })).toBe(true);
  });

  it('answers what is not a POST to /mcp with the native status, as a JSON-RPC error', async () => {
    const { agent, config } = agentFixture(null, { yaml: 'mcpServerDoor: true' });
    const door = configuredFrontDoors(config).find((candidate) => candidate.name === 'mcp-server')!;
    const services: FrontDoorServices = { agent, logger: silentLogger, maxBodyBytes: config.http.maxBodyBytes };
    const answer = async (method: string, path: string) => {
      try {
        return await door.handle({ method, path, headers: {}, body: undefined }, services);
      } catch (error) {
        return door.errorResponse(error, silentLogger);
      }
    };

    const get = await answer('GET', '/mcp');
    const elsewhere = await answer('POST', '/mcp/tools');

    expect(get).toMatchObject({ statusCode: 405, headers: { allow: 'POST' } });
    expect(JSON.parse(get.body as string)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { code: 'method_not_allowed' } } });
    expect(elsewhere.statusCode).toBe(404);
    expect(JSON.parse(elsewhere.body as string)).toMatchObject({ error: { data: { code: 'route_not_found' } } });
  });

  it('lets an owner continue its own conversation, and never shows it to another owner who names it', async () => {
    // Prepare
    const { agent, config, model } = agentFixture([textReply('你好，Ada。'), textReply('我不认识她。'), textReply('还是你，Ada。')], { yaml: 'mcpServerDoor: true' });
    const door = configuredFrontDoors(config).find((candidate) => candidate.name === 'mcp-server')!;
    const services: FrontDoorServices = { agent, logger: silentLogger, maxBodyBytes: config.http.maxBodyBytes };
    async function clientOf(owner: string): Promise<Client> {
      const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(new URL('http://agent.test/mcp'), { fetch: fetchAs(owner, door, services) }));
      clients.push(client);
      return client;
    }
    const ada = await clientOf('user-ada');
    const bob = await clientOf('user-bob');
    const started = await ada.callTool({ name: 'ask', arguments: { message: '我是 Ada' } });
    const conversationId = (started.structuredContent as { conversationId: string }).conversationId;

    // Act
    const bobsTry = await bob.callTool({ name: 'ask', arguments: { message: '她是谁？', conversationId } });
    const adasNext = await ada.callTool({ name: 'ask', arguments: { message: '我是谁？', conversationId } });

    // Assess: a conversation is the owner's and its id together, so Bob's id names a conversation of his own
    expect(bobsTry.structuredContent).toMatchObject({ conversationId, turn: 1, reply: '我不认识她。' });
    expect(model!.requests[1]!.messages.map((message) => message.content)).not.toContain('我是 Ada');
    expect(adasNext.structuredContent).toMatchObject({ conversationId, turn: 2, reply: '还是你，Ada。' });
    expect(model!.requests[2]!.messages.map((message) => message.content)).toEqual(expect.arrayContaining(['我是 Ada', '你好，Ada。', '我是谁？']));
    expect(model!.requests[2]!.messages.map((message) => message.content)).not.toContain('她是谁？');
    expect((await agent.getConversation({ conversationId, owner: 'user-bob' })).turns).toHaveLength(1);
    expect((await agent.getConversation({ conversationId, owner: 'user-ada' })).turns).toHaveLength(2);
  });

  it('keeps a quiet turn’s answer alive with heartbeats where the entry can stream', async () => {
    // Prepare: a model that answers only once the client has seen a heartbeat on the open answer
    let heartbeatSeen: () => void = () => undefined;
    const heartbeat = new Promise<void>((resolve) => (heartbeatSeen = resolve));
    const { agent, config } = agentFixture([async () => (await heartbeat, textReply('终于好了。'))], { yaml: 'mcpServerDoor: true' });
    const door = configuredFrontDoors(config).find((candidate) => candidate.name === 'mcp-server')!;
    const services: FrontDoorServices = { agent, logger: silentLogger, maxBodyBytes: config.http.maxBodyBytes, heartbeatMs: 20 };
    const onStreamText = (text: string) => {
      if (/^: ?/m.test(text)) heartbeatSeen();
    };
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL('http://agent.test/mcp'), { fetch: fetchAs('user-ada', door, services, onStreamText) }));
    clients.push(client);

    // Act
    const result = await client.callTool({ name: 'ask', arguments: { message: '慢慢来' } });

    // Assess: the answer came after a heartbeat, on the same stream
    expect(result.structuredContent).toMatchObject({ reply: '终于好了。', stopReason: 'completed' });
  });
});
