/**
 * Memory per owner through the real Lambda entry (functions/stream.ts) with AUTH_MODE=iam, on
 * dynalite, the demo MCP server and the scripted model server: API Gateway's verified identity is
 * the owner, so what one caller told the agent reaches that caller's next conversation and never
 * another caller's, in the prompt, through recall, or over GET and DELETE /memory.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, StreamifyHandler } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { stubLambdaEnvironment } from '../support/lambda-environment.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ChatRequestBody, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { splitLambdaStream } from '../support/sse-client.ts';
import { answered, completionBodies, questionOf, systemPromptOf, toolAnswers, wireMessages } from '../support/wire-requests.ts';
import { lambdaContext } from '../support/lambda-context.ts';

const baseEvent: APIGatewayProxyEvent = JSON.parse(readFileSync(new URL('../fixtures/apigateway/rest-proxy-iam.json', import.meta.url), 'utf8'));

/** A REST proxy event from the role session `session` (one owner per session under OWNER_FROM role-session). */
function event(method: string, path: string, session: string, body?: unknown): APIGatewayProxyEvent {
  const userArn = `arn:aws:sts::123456789012:assumed-role/SupportBot/${session}`;
  return {
    ...baseEvent,
    resource: '/{proxy+}',
    path,
    httpMethod: method,
    headers: { ...baseEvent.headers, Accept: 'application/json', 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    pathParameters: { proxy: path.slice(1) },
    queryStringParameters: null,
    body: body === undefined ? null : JSON.stringify(body),
    requestContext: { ...baseEvent.requestContext, httpMethod: method, path: `/prod${path}`, identity: { ...baseEvent.requestContext.identity, userArn, caller: `AROAEXAMPLEROLEID:${session}` } },
  };
}

const TELL = 'Remember: my favourite city is Hangzhou.';
const ASK = 'Which city do I like?';

function reply(body: ChatRequestBody) {
  const question = questionOf(body);
  if (question === TELL && !answered(body, 'remember')) return toolCallsReply([{ id: 'call_remember', name: 'remember', arguments: { note: 'Favourite city: Hangzhou.' } }]);
  if (question === ASK && !answered(body, 'recall')) return toolCallsReply([{ id: 'call_recall', name: 'recall', arguments: { query: 'favourite city' } }]);
  return textReply('ok');
}

describe('memory per owner through the Lambda entry (AUTH_MODE=iam)', () => {
  let table: LocalTable;
  let model: ScriptedOpenAIServer;
  let environment: { restore(): void } | undefined;
  let handler: StreamifyHandler<APIGatewayProxyEvent, void>;
  let close: () => Promise<void>;

  async function send(method: string, path: string, session: string, body?: unknown): Promise<{ status: number; body: any }> {
    const chunks: Buffer[] = [];
    const stream = Object.assign(new Writable({ write: (chunk: Buffer, _encoding, callback) => void (chunks.push(chunk), callback()) }), { setContentType: () => {} });
    await handler(event(method, path, session, body), stream, lambdaContext({ functionName: 'stream' }));
    const response = splitLambdaStream(Buffer.concat(chunks));
    return { status: response.prelude.statusCode, body: response.body ? JSON.parse(response.body) : undefined };
  }

  beforeAll(async () => {
    table = await startLocalTable();
    model = await startScriptedOpenAIServer(reply);
    environment = stubLambdaEnvironment({ agentYml: ['memory: true', 'model: { maxRetries: 0 }'], modelBaseURL: model.baseURL, table, variables: { AUTH_MODE: 'iam' } });
    const entry = await import('../../functions/stream.ts');
    handler = entry.handler;
    close = () => entry.agent.close();
  });

  afterAll(async () => {
    await close?.();
    await model?.close();
    await table?.close();
    environment?.restore();
  });

  it('gives one caller’s note to that caller’s next conversation, and to no other caller', async () => {
    // Act: alice tells, then asks in another conversation; bob asks.
    expect((await send('POST', '/conversations/tell/messages', 'alice', { message: TELL })).status).toBe(200);
    expect((await send('POST', '/conversations/ask/messages', 'alice', { message: ASK })).status).toBe(200);
    const requestsBeforeBob = completionBodies(model).length;
    expect((await send('POST', '/conversations/ask/messages', 'bob', { message: ASK })).status).toBe(200);

    // Assess: alice's second conversation has the note in its prompt and from recall.
    const bodies = completionBodies(model);
    const alicesAsk = bodies.slice(2, requestsBeforeBob);
    expect(systemPromptOf(alicesAsk[0]!)).not.toContain('Hangzhou');
    expect(wireMessages(alicesAsk[0]!)[1]).toEqual({ role: 'user', content: expect.stringMatching(/^\[Memory\] .*\n- \(\d{4}-\d\d-\d\d\) "Favourite city: Hangzhou\."$/) });
    expect(toolAnswers(alicesAsk[1]!)[0]!.content).toMatch(/^Notes matching "favourite city":\n- \(\d{4}-\d\d-\d\d\) Favourite city: Hangzhou\./);
    // Bob's (same conversation id, his own) has none.
    const bobsAsk = bodies.slice(requestsBeforeBob);
    expect(JSON.stringify(bobsAsk[0]!.messages)).not.toContain('Hangzhou');
    expect(toolAnswers(bobsAsk[1]!)[0]!.content).toBe('You have no notes about this user yet.');

    // Over the API: each lists their own; bob cannot delete alice's note; alice can.
    const alices = await send('GET', '/memory', 'alice');
    expect(alices).toMatchObject({ status: 200, body: { count: 1, notes: [{ text: 'Favourite city: Hangzhou.', conversationId: 'tell' }] } });
    expect(await send('GET', '/memory', 'bob')).toMatchObject({ status: 200, body: { count: 0, notes: [] } });
    const noteId = alices.body.notes[0].noteId as string;
    expect(await send('DELETE', `/memory/${noteId}`, 'bob')).toMatchObject({ status: 404, body: { error: { code: 'note_not_found' } } });
    expect(await send('DELETE', '/memory', 'bob')).toMatchObject({ status: 200, body: { deleted: 0 } });
    expect((await send('DELETE', `/memory/${noteId}`, 'alice')).status).toBe(204);
    expect((await send('GET', '/memory', 'alice')).body.count).toBe(0);
  });
});
