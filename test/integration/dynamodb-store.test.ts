import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type AttributeValue, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDocuments } from '../../lib/adapters/dynamodb/documents.ts';
import { documentsFromClient } from '../../lib/adapters/dynamodb/sdk-documents.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../lib/core/errors.ts';
import { condenseTurn, historyViolations } from '../../lib/core/history.ts';
import type { HistoryMessage, ToolMessage } from '../../lib/core/messages.ts';
import type { ConversationKey, ConversationStore } from '../../lib/core/ports/conversation-store.ts';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { conversationPartitionKey } from '../../lib/adapters/dynamodb/keys.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';
import { claimWrite, completeWrite, conversationStoreContract, newConversation, recordFields, sampleResult, sampleTurnMessages, storeTurn } from '../support/store-contract.ts';
import { turnLifeContract } from '../support/turn-life-contract.ts';
import { createLocalClient, type LocalTable, startLocalTable } from '../support/dynalite.ts';

const TTL_DAYS = 30;
const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);
const DYNAMODB_ITEM_LIMIT = 400 * 1024;

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable();
});
afterAll(async () => {
  await table?.close();
});

/** Through the lean client the functions use, unless given an embedder's document client (wrapped). */
const createStore = (dynamo: DynamoDocuments = table.dynamo, tableName = table.tableName): ConversationStore =>
  createDynamoConversationStore({ client: dynamo, tableName, ttlDays: TTL_DAYS, now: () => NOW });

/** The raw item, read past the store, and its size counted from the wire values. */
async function readRawItem(key: ConversationKey, turn: number) {
  const output = await table.client.send(
    new GetItemCommand({
      TableName: table.tableName,
      Key: { pk: { S: conversationPartitionKey(key) }, sk: { N: String(turn) } },
      ConsistentRead: true,
    }),
  );
  const item = output.Item;
  return item && { item, bytes: rawItemBytes(item) };
}

function rawItemBytes(item: Record<string, AttributeValue>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name);
    if (value.S !== undefined) bytes += Buffer.byteLength(value.S);
    else if (value.N !== undefined) bytes += value.N.length;
    else if (value.B !== undefined) bytes += value.B.byteLength;
    else if (value.L !== undefined) bytes += 3 + value.L.reduce((sum, element) => sum + 1 + Buffer.byteLength(element.S ?? ''), 0);
    else throw new Error(`unexpected attribute type for ${name}`);
  }
  return bytes;
}

/** Random bytes as base64: text that gzip can hardly shrink, like a binary tool output would be. */
const incompressibleText = (characters: number) => randomBytes(Math.ceil((characters * 3) / 4)).toString('base64').slice(0, characters);

function turnWithToolOutput(output: string, answer = 'Done.'): HistoryMessage[] {
  return [
    { role: 'user', content: 'Export the report.' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'call_export', name: 'exportReport', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'call_export', name: 'exportReport', content: output },
    { role: 'assistant', content: answer, toolCalls: [] },
  ];
}

async function storeError(promise: Promise<unknown>, code: string): Promise<StoreError> {
  const error = await promise.then(() => undefined, (rejection: unknown) => rejection);
  expect(error).toBeInstanceOf(StoreError);
  expect(error).toMatchObject({ code });
  return error as StoreError;
}

describe('createDynamoConversationStore on dynalite', () => {
  conversationStoreContract(() => createStore());

  describe('through an embedder’s DynamoDBDocumentClient (buildAgent({ documentClient }))', () => {
    conversationStoreContract(() => createStore(documentsFromClient(table.documentClient)));
  });

  describe('a turn’s life', () => {
    turnLifeContract(() => createStore());
  });

  it('keeps the lease only while running, the approval expiry only while paused, and the TTL in epoch seconds', async () => {
    const store = createStore();
    const key = newConversation();
    await store.create(key, 1, claimWrite('claim-1', 'request-1'));
    const running = await readRawItem(key, 1);
    expect(running?.item).toMatchObject({ v: { N: '2' }, status: { S: 'pending' }, claimId: { S: 'claim-1' }, leaseExpiresAt: { N: String(claimWrite('claim-1', 'request-1').leaseExpiresAt) } });

    await store.update(key, 1, { claimId: 'claim-1', status: 'running' }, completeWrite(key, 1, 'claim-1', 'request-1'));

    const complete = await readRawItem(key, 1);
    expect(complete?.item).toMatchObject({
      status: { S: 'complete' },
      expiresAt: { N: String(NOW / 1000 + TTL_DAYS * 86_400) },
      requestId: { S: 'request-1' },
      requestIds: { L: [{ S: 'request-1' }] },
    });
    expect(complete?.item.leaseExpiresAt).toBeUndefined();
    expect(complete?.item.messages?.B).toBeInstanceOf(Uint8Array);
  });

  it('stores a turn with a 1 MB tool output under the item limit, cutting only the stored tool output', async () => {
    const store = createStore();
    const key = newConversation();
    const output = incompressibleText(1_000_000);
    await store.create(key, 1, claimWrite('claim-1', 'request-1'));
    await store.update(key, 1, { claimId: 'claim-1', status: 'running' }, { ...completeWrite(key, 1, 'claim-1', 'request-1'), messages: turnWithToolOutput(output) });

    const raw = await readRawItem(key, 1);
    expect(raw?.bytes).toBeLessThan(DYNAMODB_ITEM_LIMIT);
    const messages = (await store.readAll(key))[0]!.messages();
    const toolMessage = messages[2] as ToolMessage;
    const marker = /\n…\[truncated for storage: kept (\d+) of 1000000 characters\]$/.exec(toolMessage.content);
    expect(marker).not.toBeNull();
    const kept = Number(marker?.[1]);
    expect(kept).toBeGreaterThan(100_000);
    expect(toolMessage.content.slice(0, kept)).toBe(output.slice(0, kept));
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(historyViolations(messages)).toEqual([]);
  });

  it('refuses a turn whose assistant text alone is too large with turn_too_large, writing nothing', async () => {
    const store = createStore();
    const key = newConversation();
    await store.create(key, 1, claimWrite('claim-1', 'request-1'));
    await storeError(
      store.update(key, 1, { claimId: 'claim-1', status: 'running' }, { ...completeWrite(key, 1, 'claim-1', 'request-1'), messages: turnWithToolOutput('small output', incompressibleText(600_000)) }),
      'turn_too_large',
    );
    expect((await readRawItem(key, 1))?.item.status).toEqual({ S: 'pending' });
  });

  describe('requests per turn, counted on the wire', () => {
    let commands: string[] = [];
    let countingStore: ConversationStore;
    beforeAll(() => {
      const client = createLocalClient(table.endpoint);
      client.middlewareStack.add(
        (next, context) => async (args) => {
          commands.push(String(context.commandName));
          return next(args);
        },
        { step: 'initialize', name: 'countCommands' },
      );
      countingStore = createStore(documentsFromClient(DynamoDBDocumentClient.from(client)));
    });

    const turnOf = async (script: ScriptedStep[], conversationId = `c-${randomUUID()}`) => {
      const { agent } = agentFixture(script, { store: countingStore });
      commands = [];
      await agent.ask({ conversationId, message: 'question' });
      return commands;
    };

    it('costs one Query and two writes when no call may change anything, whatever the rounds', async () => {
      const weather = (id: string) => toolCallsReply([{ id, name: 'getWeather', arguments: { city: '上海' } }]);
      expect(await turnOf([weather('w1'), weather('w2'), weather('w3'), textReply('done')])).toEqual(['QueryCommand', 'PutItemCommand', 'PutItemCommand']);
    });

    it('adds two writes, before and after, for each round whose calls may change something', async () => {
      const cancel = (id: string) => toolCallsReply([{ id, name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: [id] } }]);
      expect(await turnOf([cancel('c1'), cancel('c2'), textReply('done')])).toEqual(['QueryCommand', 'PutItemCommand', 'PutItemCommand', 'PutItemCommand', 'PutItemCommand', 'PutItemCommand', 'PutItemCommand']);
    });

    it('adds one write when the turn first completes a turn whose process died', async () => {
      const key = newConversation();
      await countingStore.create(key, 1, claimWrite('dead-claim', 'dead-request', 'question', Date.now() - 1));
      const { agent } = agentFixture([textReply('done')], { store: countingStore });
      commands = [];
      await agent.ask({ ...key, message: 'next' });
      // Query; complete turn 1 as interrupted; claim turn 2; complete turn 2.
      expect(commands).toEqual(['QueryCommand', 'PutItemCommand', 'PutItemCommand', 'PutItemCommand']);
      expect((await countingStore.readAll(key)).map((record) => [record.turn, (record.result() as { stopReason?: string }).stopReason])).toEqual([[1, 'interrupted'], [2, 'completed']]);
    });

    it('reads further Query pages only while the history budget allows', async () => {
      // Prepare: six turns of about 300 KB each, more than one 1 MB Query page
      const key = newConversation();
      const turns = Array.from({ length: 6 }, () => turnWithToolOutput(incompressibleText(400_000)));
      for (const [index, messages] of turns.entries()) {
        const claimId = randomUUID();
        await countingStore.create(key, index + 1, claimWrite(claimId, `writer-${index}`));
        await countingStore.update(key, index + 1, { claimId, status: 'running' }, { ...completeWrite(key, index + 1, claimId, `writer-${index}`), messages });
      }
      const stored = (await countingStore.readAll(key)).map((record) => record.messages());
      const historyWith = async (maxTokens: number) => {
        const { agent, model } = agentFixture([textReply('ok')], { store: countingStore, yaml: `history: { maxTokens: ${maxTokens} }` });
        commands = [];
        await agent.ask({ ...key, message: 'and?' });
        return { history: model!.requests[0]!.messages.slice(1, -1), queries: commands.filter((command) => command === 'QueryCommand').length };
      };

      const everything = await historyWith(10_000_000);
      expect(everything.history).toEqual(stored.flat());
      expect(everything.queries).toBe(2);

      // Turn 7 ("and?", "ok") is stored now too.
      const all = (await countingStore.readAll(key)).map((record) => record.messages());
      const newestOnly = await historyWith(150_000);
      // The newest turns whole, after the question and answer of the one before them, which did not fit.
      expect(newestOnly.history).toEqual([...condenseTurn(all[4]!), ...all[5]!, ...all[6]!]);
      expect(newestOnly.queries).toBe(1);
    });
  });

  describe('a page of a long conversation', () => {
    let queries: Array<Record<string, unknown>> = [];
    let pagingStore: ConversationStore;
    beforeAll(() => {
      const client = createLocalClient(table.endpoint);
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName === 'QueryCommand') queries.push((args as { input: Record<string, unknown> }).input);
          return next(args);
        },
        { step: 'initialize', name: 'recordQueries' },
      );
      pagingStore = createStore(documentsFromClient(DynamoDBDocumentClient.from(client)));
    });

    it('reads limit + 1 turns in one Query from the turn after the last one read, never the whole conversation', async () => {
      const key = newConversation();
      for (let turn = 1; turn <= 40; turn += 1) await storeTurn(pagingStore, key, turn);
      queries = [];

      const page = await pagingStore.readPage(key, { limit: 5, after: 10 });

      expect(page.records.map((record) => record.turn)).toEqual([11, 12, 13, 14, 15]);
      expect(page.more).toBe(true);
      expect(queries).toEqual([expect.objectContaining({ Limit: 6, ScanIndexForward: true, ExclusiveStartKey: { pk: conversationPartitionKey(key), sk: 10 } })]);
    });

    it('asks again after a Query cut at 1 MB, until the page is full', async () => {
      const key = newConversation();
      for (let turn = 1; turn <= 5; turn += 1) {
        const claimId = randomUUID();
        await pagingStore.create(key, turn, claimWrite(claimId, `writer-${turn}`));
        await pagingStore.update(key, turn, { claimId, status: 'running' }, { ...completeWrite(key, turn, claimId, `writer-${turn}`), messages: turnWithToolOutput(incompressibleText(400_000)) });
      }
      queries = [];

      const page = await pagingStore.readPage(key, { limit: 4 });

      expect(page.records.map((record) => record.turn)).toEqual([1, 2, 3, 4]);
      expect(page.more).toBe(true);
      expect(queries.length).toBeGreaterThan(1);
    });
  });

  describe('items of other versions', () => {
    it('reads a version 1 turn, complete or left pending by a dead request', async () => {
      const store = createStore();
      const key = newConversation();
      const pk = conversationPartitionKey(key);
      const messages = sampleTurnMessages(1);
      await table.documentClient.send(new PutCommand({ TableName: table.tableName, Item: { pk, sk: 1, v: 1, requestId: 'old-1', status: 'complete', createdAt: 'then', completedAt: 'then', expiresAt: 1, messages: gzipSync(JSON.stringify(messages)), result: JSON.stringify(sampleResult(key, 1)), tokens: 40 } }));
      await table.documentClient.send(new PutCommand({ TableName: table.tableName, Item: { pk, sk: 2, v: 1, requestId: 'old-2', status: 'pending', createdAt: 'then', leaseExpiresAt: 5, expiresAt: 1 } }));
      const records = await store.readAll(key);
      expect(recordFields(records[0])).toMatchObject({ turn: 1, requestIds: ['old-1'], claimId: 'old-1', status: 'complete', messages });
      expect(recordFields(records[1])).toMatchObject({ turn: 2, requestIds: ['old-2'], claimId: 'old-2', status: 'running', messages: [], result: { rounds: 0 } });
      // A version 1 claim is still held by its request: it can be completed under that id.
      await store.update(key, 2, { claimId: 'old-2', status: 'running' }, completeWrite(key, 2, 'settler', 'old-2'));
      expect((await store.readAll(key))[1]).toMatchObject({ status: 'complete', claimId: 'settler' });
    });

    it('refuses an item written with an unknown item version', async () => {
      const store = createStore();
      const key = newConversation();
      await table.documentClient.send(new PutCommand({ TableName: table.tableName, Item: { pk: conversationPartitionKey(key), sk: 1, v: 3, requestId: 'future', status: 'complete' } }));
      await storeError(store.readAll(key), 'unsupported_item_version');
    });
  });

  it('wraps a DynamoDB failure in store_unavailable, keeping the SDK error as its cause', async () => {
    const store = createStore(table.dynamo, 'no-such-table');
    const error = await storeError(store.create(newConversation(), 1, claimWrite('claim-1', 'request-1')), 'store_unavailable');
    expect(error.message).toContain('no-such-table');
    expect(error.cause).toMatchObject({ name: 'ResourceNotFoundException' });
  });
});

describe('startDynalite', () => {
  it('keeps the data of a folder across a restart', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'dynalite-'));
    try {
      const key = newConversation();
      const first = await startLocalTable({ path: folder });
      await storeTurn(createStore(first.dynamo, first.tableName), key, 1, 'request-1');
      await first.close();

      const second = await startLocalTable({ path: folder });
      const records = await createStore(second.dynamo, second.tableName).readAll(key);
      await second.close();

      expect(records.map((record) => [record.turn, record.requestIds])).toEqual([[1, ['request-1']]]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
