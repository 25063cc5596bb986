/**
 * The "Using it from code" example (docs/embedding.md), as written: buildAgent with a DynamoDB
 * document client (on dynalite), the configured MCP server (the demo server over stdio) and an
 * OpenAI-compatible model (the scripted server over HTTP).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgent, loadConfig, type Agent } from '../../lib/index.ts';
import { createLocalClient, startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { DEMO_SERVER } from '../support/lambda-environment.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

describe('buildAgent, embedded in other code', () => {
  let table: LocalTable;
  let model: ScriptedOpenAIServer;
  let agent: Agent;
  let folder: string;

  beforeAll(async () => {
    table = await startLocalTable();
    model = await startScriptedOpenAIServer([
      toolCallsReply([{ id: 'call_1', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('上海多云。'),
      textReply('明天也多云。'),
    ]);
    folder = mkdtempSync(join(tmpdir(), 'embedding-'));
    writeFileSync(join(folder, 'agent.yml'), [
      `model: { name: gpt-4-turbo, baseURL: "${model.baseURL}", apiKey: sk-test }`,
      `conversation: { tableName: ${table.tableName} }`,
      'mcpServers:',
      `  demo: { command: node, args: [${JSON.stringify(DEMO_SERVER)}] }`,
    ].join('\n'));
    const documentClient = DynamoDBDocumentClient.from(createLocalClient(table.endpoint));
    agent = buildAgent(loadConfig({ path: join(folder, 'agent.yml'), environment: {} }), { documentClient, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  });

  afterAll(async () => {
    await agent?.close();
    await model?.close();
    await table?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('answers, keeps the conversation, and carries it into the next question', async () => {
    const first = await agent.ask({ message: 'What is the weather in Shanghai?' });
    expect(first).toMatchObject({ turn: 1, reply: '上海多云。', stopReason: 'completed', toolCalls: [{ name: 'getWeather', ok: true }] });

    const next = await agent.ask({ conversationId: first.conversationId, message: 'And tomorrow?', requestId: 'req-2' });
    expect(next).toMatchObject({ conversationId: first.conversationId, turn: 2, reply: '明天也多云。' });
    const sent = (model.requests[2]!.body as { messages: Array<{ role: string }> }).messages;
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    await expect(agent.getConversation({ conversationId: first.conversationId })).resolves.toMatchObject({ turns: [{ turn: 1 }, { turn: 2 }] });
  });
});
