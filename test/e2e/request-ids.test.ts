/**
 * A requestId (or /v1's Idempotency-Key) replays the stored turn only to the request that made it,
 * through npm start: the same id with another message, or other decisions, is 422
 * request_id_reused, and says nothing of the stored turn or its conversation.
 */
import { describe, expect, it } from 'vitest';
import { demoServerYml, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { textReply, toolCallsReply, type ChatRequestBody } from '../support/scripted-openai-server.ts';
import { answered, questionOf } from '../support/wire-requests.ts';

const CANCEL = '取消订单 ORD20250514118567';

/** Cancels when asked to (a call that needs approval), answers everything else with its question. */
function reply(body: ChatRequestBody) {
  const question = questionOf(body);
  if (question === CANCEL && !answered(body, 'batchCancelOrdersByOrderNo')) {
    return toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]);
  }
  return textReply(`answer to ${question}`);
}

async function postWithHeaders(url: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text(), conversationId: response.headers.get('x-conversation-id') };
}

describe('a requestId reused for another request, through npm start', () => {
  const servers = serversPerTest();

  it('refuses another message under a requestId with 422, on POST /conversations and on a named conversation, and still replays the same one', async () => {
    const model = await servers.model(reply);
    const { server } = await servers.local(demoServerYml(), model);

    const first = await postJson(`${server.url}/conversations`, { message: 'my order history, please', requestId: 'alice-1' });
    expect(first).toMatchObject({ status: 201, body: { turn: 1, reply: 'answer to my order history, please' } });
    const conversationId = first.body.conversationId as string;

    // Someone else's message under Alice's requestId: the same derived conversation, but not her turn.
    const stolen = await postWithHeaders(`${server.url}/conversations`, { message: 'anything', requestId: 'alice-1' }, {});
    expect(stolen.status).toBe(422);
    expect(JSON.parse(stolen.text)).toMatchObject({ error: { code: 'request_id_reused', message: expect.stringMatching(/new requestId/) } });
    expect(stolen.text).not.toContain(conversationId);
    expect(stolen.text).not.toContain('my order history');

    const named = await postJson(`${server.url}/conversations/${conversationId}/messages`, { message: 'something else', requestId: 'alice-1' });
    expect(named).toMatchObject({ status: 422, body: { error: { code: 'request_id_reused' } } });

    // The request itself, sent again, still gets its stored turn; nothing ran again.
    const retried = await postJson(`${server.url}/conversations`, { message: 'my order history, please', requestId: 'alice-1' });
    expect(retried).toMatchObject({ status: 201, body: first.body });
    expect(model.requests).toHaveLength(1);
  });

  it('refuses another chat under an Idempotency-Key on /v1 with 422, and still replays the same one', async () => {
    const model = await servers.model(reply);
    const { server } = await servers.local(demoServerYml(), model);
    const chat = (content: string) => ({ model: 'mcp-agent', messages: [{ role: 'user', content }] });

    const first = await postWithHeaders(`${server.url}/v1/chat/completions`, chat('my order history, please'), { 'idempotency-key': 'alice-v1' });
    expect(first.status).toBe(200);
    expect(first.conversationId).toBeTruthy();

    const stolen = await postWithHeaders(`${server.url}/v1/chat/completions`, chat('anything'), { 'idempotency-key': 'alice-v1' });
    expect(stolen.status).toBe(422);
    expect(JSON.parse(stolen.text)).toMatchObject({ error: { code: 'request_id_reused', type: 'invalid_request_error' } });
    expect(stolen.conversationId).toBeNull();
    expect(stolen.text).not.toContain(first.conversationId!);

    const retried = await postWithHeaders(`${server.url}/v1/chat/completions`, chat('my order history, please'), { 'idempotency-key': 'alice-v1' });
    expect(retried.status).toBe(200);
    expect(JSON.parse(retried.text).choices).toEqual(JSON.parse(first.text).choices);
    expect(model.requests).toHaveLength(1);
  });

  it('refuses other decisions under an approval’s requestId with 422, and replays the same decisions', async () => {
    const model = await servers.model(reply);
    const { server } = await servers.local(demoServerYml(', requireApproval: destructive'), model);
    const paused = await postJson(`${server.url}/conversations/orders/messages`, { message: CANCEL });
    expect(paused.body).toMatchObject({ stopReason: 'approval_required' });

    const approve = { decisions: [{ toolCallId: 'call_cancel', approved: true }], requestId: 'approve-1' };
    const approved = await postJson(`${server.url}/conversations/orders/approvals`, approve);
    expect(approved).toMatchObject({ status: 200, body: { stopReason: 'completed' } });

    const declined = await postJson(`${server.url}/conversations/orders/approvals`, { decisions: [{ toolCallId: 'call_cancel', approved: false }], requestId: 'approve-1' });
    expect(declined).toMatchObject({ status: 422, body: { error: { code: 'request_id_reused' } } });
    // A message under the decision's requestId is another request too.
    const asked = await postJson(`${server.url}/conversations/orders/messages`, { message: 'hello', requestId: 'approve-1' });
    expect(asked).toMatchObject({ status: 422, body: { error: { code: 'request_id_reused' } } });

    const retried = await postJson(`${server.url}/conversations/orders/approvals`, approve);
    expect(retried).toMatchObject({ status: 200, body: approved.body });
  });
});
