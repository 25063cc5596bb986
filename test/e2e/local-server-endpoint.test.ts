import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, type LocalDynamo } from '../../lib/local/dynalite.ts';
import { createLocalClient } from '../support/dynalite.ts';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

/** A port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the local server with DYNAMODB_ENDPOINT', () => {
  // Another DynamoDB-protocol server in its own place, standing in for DynamoDB Local.
  let dynamo: LocalDynamo;
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let dataDir: string;
  const tableName = `endpoint-e2e-${randomUUID()}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-endpoint-e2e-'));
    dynamo = await startDynalite();
    model = await startScriptedOpenAIServer([textReply('上海今天晴。')]);
    server = await startLocalServer({
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      CONVERSATIONS_TABLE: tableName,
      LOCAL_DATA_DIR: dataDir,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'sk-test',
      LLM_MODEL: 'gpt-4-turbo',
    });
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    await dynamo?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the table at that endpoint, stores turns there, and starts no embedded store', async () => {
    // Act
    const response = await fetch(`${server.url}/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: '上海天气怎么样？' }),
    });
    // Assess
    expect(response.status).toBe(201);
    expect(server.output()).toContain(`Conversations are stored in DynamoDB at ${dynamo.endpoint} (DYNAMODB_ENDPOINT), table "${tableName}"`);
    const client = createLocalClient(dynamo.endpoint);
    try {
      const table = await client.send(new DescribeTableCommand({ TableName: tableName }));
      expect(table.Table?.TableStatus).toBe('ACTIVE');
      const items = await client.send(new ScanCommand({ TableName: tableName }));
      expect(items.Items).toHaveLength(1);
    } finally {
      client.destroy();
    }
    expect(existsSync(join(dataDir, 'dynalite'))).toBe(false);
  });

  it('stops at once, naming the endpoint, when nothing answers there', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;

    const start = startLocalServer({ DYNAMODB_ENDPOINT: endpoint, LOCAL_DATA_DIR: dataDir });

    await expect(start).rejects.toThrow(`Cannot use DynamoDB at ${endpoint}: DynamoDB DescribeTable on table`);
  });
});
