import { describe, expect, it } from 'vitest';
import { serversPerTest } from '../support/configured-local-server.ts';
import { PROJECT_ROOT } from '../support/mcp-servers.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';

async function post(url: string, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

type WireMessage = { role: string; tool_call_id?: string; content?: string };

/**
 * A URL-mode elicitation (MCP 2025-11-25) through `npm start` as a real process: the server's
 * tool asks the user to open a page, the turn pauses with the URL, and the client accepts it on the
 * approvals route with `{"action": "accept"}` and no content; the call runs again.
 */
describe('an MCP server asking the user to visit a URL, through the local server', () => {
  const servers = serversPerTest();

  it('pauses with the URL, and runs the call again when the client accepts it with no content', async () => {
    const model = await servers.model([
      toolCallsReply([{ id: 'call_link', name: 'connect_account', arguments: {} }]),
      textReply('Linked.'),
    ]);
    const entry = `${PROJECT_ROOT}test/fixtures/url-elicitation-server.ts`;
    const config = `tools: { callTimeoutSeconds: 60, connectTimeoutSeconds: 30 }\nmcpServers:\n  accounts:\n    command: node\n    args: [${JSON.stringify(entry)}]\n    elicitation: ask\n`;
    const local = await servers.local(config, model);

    const paused = await post(`${local.server.url}/conversations/link-1/messages`, { message: 'Link my account' });
    expect(paused).toMatchObject({
      status: 200,
      body: { stopReason: 'input_required', pendingElicitations: [{ toolCallId: 'call_link', mode: 'url', url: 'https://accounts.example/link?id=link-1', message: 'Sign in to link your account.' }] },
    });

    const answered = await post(`${local.server.url}/conversations/link-1/approvals`, { decisions: [{ toolCallId: 'call_link', answer: { action: 'accept' } }] });

    expect(answered).toMatchObject({ status: 200, body: { stopReason: 'completed', reply: 'Linked.' } });
    const sent = (model.requests[1]!.body as { messages: WireMessage[] }).messages;
    expect(sent.find((message) => message.tool_call_id === 'call_link')?.content).toBe('account linked');
  });
});
