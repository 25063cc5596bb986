/**
 * A question one of the agent's own MCP servers asks during a call (server-everything's
 * elicitation), reaching a client of the MCP server door as an elicitation: the turn pauses as
 * `input_required`, the door hands the question and its form to the SDK client, and the client's
 * answer reaches server-everything when its call runs again. Through `npm start` as a real process.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { serversPerTest } from '../support/configured-local-server.ts';
import { EVERYTHING_ENTRY, PROJECT_ROOT } from '../support/mcp-servers.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';

type WireMessage = { role: string; tool_call_id?: string; content?: string };

describe('a tool’s question, asked of the MCP client that called the agent', () => {
  const servers = serversPerTest();

  /** The door of a service whose one server asks the user to open a page, and a client that declared `elicitation` and accepts. */
  async function accountsDoorClient(model: Awaited<ReturnType<typeof servers.model>>, elicitation: { form: Record<string, never>; url?: Record<string, never> }) {
    const entry = `${PROJECT_ROOT}test/fixtures/url-elicitation-server.ts`;
    const config = `mcpServerDoor: true\ntools: { callTimeoutSeconds: 60, connectTimeoutSeconds: 30 }\nmcpServers:\n  accounts:\n    command: node\n    args: [${JSON.stringify(entry)}]\n    elicitation: ask\n`;
    const local = await servers.local(config, model);
    const client = new Client({ name: 'url-question-test', version: '1.0.0' }, { capabilities: { elicitation }, versionNegotiation: { mode: 'auto' } });
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${local.server.url}/mcp`)));
    return { client, asked };
  }

  it('passes the question and its form on as an elicitation, and the answer back to the tool', async () => {
    // Prepare
    const model = await servers.model([
      toolCallsReply([{ id: 'call_form', name: 'trigger-elicitation-request', arguments: {} }]),
      textReply('Thank you, Ada.'),
    ]);
    const config = `mcpServerDoor: true\ntools: { callTimeoutSeconds: 60, connectTimeoutSeconds: 30 }\nmcpServers:\n  everything:\n    command: node\n    args: [${JSON.stringify(EVERYTHING_ENTRY)}, stdio]\n    elicitation: ask\n`;
    const local = await servers.local(config, model);
    const client = new Client({ name: 'question-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
    const asked: Array<{ message: string; requestedSchema: unknown }> = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push({ message: request.params.message, requestedSchema: (request.params as { requestedSchema?: unknown }).requestedSchema });
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${local.server.url}/mcp`)));

    try {
      // Act
      const result = await client.callTool({ name: 'ask', arguments: { message: 'Sign me up' } });

      // Assess
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ message: 'Please provide inputs for the following fields:', requestedSchema: { required: ['name'] } });
      expect(result.structuredContent).toMatchObject({ stopReason: 'completed', reply: 'Thank you, Ada.', rounds: 2 });
      const sent = (model.requests[1]!.body as { messages: WireMessage[] }).messages;
      expect(sent.find((message) => message.tool_call_id === 'call_form')?.content).toContain('Ada Lovelace');
    } finally {
      await client.close();
    }
  }, 90_000);

  it('passes a URL-mode question on as a URL elicitation, and the accept back to the tool', async () => {
    const model = await servers.model([
      toolCallsReply([{ id: 'call_link', name: 'connect_account', arguments: {} }]),
      textReply('Linked.'),
    ]);
    const { client, asked } = await accountsDoorClient(model, { form: {}, url: {} });

    try {
      const result = await client.callTool({ name: 'ask', arguments: { message: 'Link my account' } });

      expect(asked).toEqual([expect.objectContaining({ mode: 'url', url: 'https://accounts.example/link?id=link-1', message: 'Sign in to link your account.' })]);
      expect(result.structuredContent).toMatchObject({ stopReason: 'completed', reply: 'Linked.' });
      const sent = (model.requests[1]!.body as { messages: WireMessage[] }).messages;
      expect(sent.find((message) => message.tool_call_id === 'call_link')?.content).toBe('account linked');
    } finally {
      await client.close();
    }
  }, 90_000);

  it('answers a client that can only fill in forms with the URL to open, never a URL elicitation it cannot show', async () => {
    const model = await servers.model([toolCallsReply([{ id: 'call_link', name: 'connect_account', arguments: {} }])]);
    // MCP 2025-11-25: `elicitation: { form: {} }` declares forms only; URL mode needs `url`.
    const { client, asked } = await accountsDoorClient(model, { form: {} });

    try {
      const result = await client.callTool({ name: 'ask', arguments: { message: 'Link my account' } });

      expect(asked).toEqual([]);
      expect(result.structuredContent).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ mode: 'url', url: 'https://accounts.example/link?id=link-1' }] });
      expect((result.content as Array<{ text: string }>)[0]!.text).toContain('https://accounts.example/link?id=link-1');
    } finally {
      await client.close();
    }
  }, 90_000);
});
