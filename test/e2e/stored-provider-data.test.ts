/**
 * A conversation stored before provider data (wire details on the message itself: `reasoning.field`,
 * `extraContent`) continues through `npm start` exactly as it would have: its next request carries
 * the reasoning under the field it came in and Gemini's signatures where Gemini sent them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, type LocalDynamo } from '../../lib/local/dynalite.ts';
import { createLocalClient } from '../support/dynalite.ts';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

/** Turn 1 as the code before provider data stored it (item version 2, messages gzipped JSON). */
const OLD_MESSAGES = [
  { role: 'user', content: '上海天气怎么样？' },
  {
    role: 'assistant',
    content: null,
    toolCalls: [{ id: 'call_g1', name: 'getWeather', arguments: '{"city":"上海"}', extraContent: { google: { thought_signature: 'CALL-SIG' } } }],
    reasoning: { field: 'reasoning_content', text: 'The user wants the weather.' },
    extraContent: { google: { thought_signature: 'MSG-SIG' } },
  },
  { role: 'tool', toolCallId: 'call_g1', name: 'getWeather', content: '{"city":"上海","weather":"晴"}' },
  { role: 'assistant', content: '上海今天晴。', toolCalls: [], reasoning: { field: 'reasoning', text: 'Answer now.' } },
];

describe('a conversation stored before provider data', () => {
  let dynamo: LocalDynamo;
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let dataDir: string;
  const tableName = `provider-data-e2e-${randomUUID()}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-provider-data-e2e-'));
    dynamo = await startDynalite();
    model = await startScriptedOpenAIServer([textReply('明天多云。')]);
    server = await startLocalServer({ DYNAMODB_ENDPOINT: dynamo.endpoint, CONVERSATIONS_TABLE: tableName, LOCAL_DATA_DIR: dataDir, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo' });
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    await dynamo?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('continues with the same wire details on the next request', async () => {
    // Prepare: the table exists once the server started; turn 1 is put there in the old shape.
    const client = DynamoDBDocumentClient.from(createLocalClient(dynamo.endpoint));
    try {
      await client.send(new PutCommand({
        TableName: tableName,
        Item: {
          pk: '-#old-conversation', sk: 1, v: 2, requestId: 'old-1', requestIds: ['old-1'], claimId: 'old-1', status: 'complete',
          createdAt: '2026-01-01T00:00:00.000Z', completedAt: '2026-01-01T00:00:05.000Z', expiresAt: Math.floor(Date.now() / 1000) + 86_400, writtenAt: 1,
          messages: gzipSync(JSON.stringify(OLD_MESSAGES)), tokens: 60,
          result: JSON.stringify({ conversationId: 'old-conversation', turn: 1, reply: '上海今天晴。', stopReason: 'completed', rounds: 2, toolCalls: [{ id: 'call_g1', name: 'getWeather', arguments: { city: '上海' }, ok: true, durationMs: 3 }], usage: { promptTokens: 10, completionTokens: 5 } }),
        },
      }));
    } finally {
      client.destroy();
    }

    // Act
    const response = await fetch(`${server.url}/conversations/old-conversation/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: '明天呢？' }) });

    // Assess: the request the model got, against what the code before provider data sent.
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ turn: 2, reply: '明天多云。', stopReason: 'completed' });
    const sent = (model.requests[0]!.body as { messages: unknown[] }).messages;
    expect(sent.slice(1)).toEqual([
      { role: 'user', content: '上海天气怎么样？' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_g1', type: 'function', function: { name: 'getWeather', arguments: '{"city":"上海"}' }, extra_content: { google: { thought_signature: 'CALL-SIG' } } }],
        reasoning_content: 'The user wants the weather.',
        extra_content: { google: { thought_signature: 'MSG-SIG' } },
      },
      { role: 'tool', tool_call_id: 'call_g1', name: 'getWeather', content: '{"city":"上海","weather":"晴"}' },
      { role: 'assistant', content: '上海今天晴。', reasoning: 'Answer now.' },
      { role: 'user', content: '明天呢？' },
    ]);
  });
});
