import { describe, expect, it } from 'vitest';
import { serversPerTest } from '../support/configured-local-server.ts';
import { EVERYTHING_ENTRY } from '../support/mcp-servers.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';
import { eventNames, postForEvents } from '../support/sse-client.ts';

async function post(url: string, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

type WireMessage = { role: string; tool_call_id?: string; content?: string };

/**
 * A question an MCP server asks during a call, through `npm start` as a real process: the turn
 * pauses (streamed as `elicitation-required`), the service restarts, and the answer given over
 * HTTP reaches server-everything when its call runs again.
 */
describe('an MCP server’s question across a restart of the local server', () => {
  const servers = serversPerTest();

  it('pauses for the answer, and runs the call again with it after the service restarted', async () => {
    const model = await servers.model([
      toolCallsReply([{ id: 'call_form', name: 'trigger-elicitation-request', arguments: {} }]),
      textReply('Thank you, Ada.'),
    ]);
    const config = `tools: { callTimeoutSeconds: 60, connectTimeoutSeconds: 30 }\nmcpServers:\n  everything:\n    command: node\n    args: [${JSON.stringify(EVERYTHING_ENTRY)}, stdio]\n    elicitation: ask\n`;
    const local = await servers.local(config, model);

    const paused = await postForEvents(`${local.server.url}/conversations/signup-7/messages`, { body: { message: 'Sign me up' } });
    expect(paused.status).toBe(200);
    expect(eventNames(paused)).toEqual(['round-start', 'tool-call', 'elicitation-required', 'turn-end']);
    const asked = paused.events.find((event) => event.event === 'elicitation-required')!.data as any;
    expect(asked).toMatchObject({ round: 1, pendingElicitations: [{ toolCallId: 'call_form', server: 'everything', message: 'Please provide inputs for the following fields:' }] });
    expect(paused.events.at(-1)!.data).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ toolCallId: 'call_form', requestedSchema: { required: ['name'] } }] });

    await local.restart();

    const shown = (await (await fetch(`${local.server.url}/conversations/signup-7`)).json()) as any;
    expect(shown.turns[0]).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ toolCallId: 'call_form' }] });
    const unfit = await post(`${local.server.url}/conversations/signup-7/approvals`, { decisions: [{ toolCallId: 'call_form', answer: { action: 'accept', content: { check: true } } }] });
    expect(unfit).toMatchObject({ status: 400, body: { error: { code: 'invalid_answer' } } });

    const answered = await post(`${local.server.url}/conversations/signup-7/approvals`, {
      decisions: [{ toolCallId: 'call_form', answer: { action: 'accept', content: { name: 'Ada Lovelace', check: true } } }],
      requestId: 'answer-1',
    });
    expect(answered).toMatchObject({ status: 200, body: { turn: 1, stopReason: 'completed', reply: 'Thank you, Ada.', rounds: 2 } });
    const sent = (model.requests[1]!.body as { messages: WireMessage[] }).messages;
    expect(sent.find((message) => message.tool_call_id === 'call_form')?.content).toContain('Ada Lovelace');

    const retried = await post(`${local.server.url}/conversations/signup-7/approvals`, {
      decisions: [{ toolCallId: 'call_form', answer: { action: 'accept', content: { name: 'Ada Lovelace', check: true } } }],
      requestId: 'answer-1',
    });
    expect(retried).toMatchObject({ status: 200, body: { stopReason: 'completed', reply: 'Thank you, Ada.' } });
    expect(model.requests).toHaveLength(2);
  });
});
