import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttributeValue, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { condenseTurn, historyViolations } from '../../lib/core/history.ts';
import type { HistoryMessage, ToolMessage } from '../../lib/core/messages.ts';
import type { ConversationKey, ConversationStore } from '../../lib/core/ports.ts';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { conversationPartitionKey } from '../../lib/adapters/dynamodb/keys.ts';
import {
  claim,
  conversationStoreContract,
  expectStoreError,
  newConversation,
  sampleResult,
  sampleTurnMessages,
  storeTurn,
} from '../support/store-contract.ts';
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

const createStore = (documentClient = table.documentClient, tableName = table.tableName): ConversationStore =>
  createDynamoConversationStore({ client: documentClient, tableName, ttlDays: TTL_DAYS, now: () => NOW });

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

describe('createDynamoConversationStore on dynalite', () => {
  conversationStoreContract(({ now }) =>
    createDynamoConversationStore({ client: table.documentClient, tableName: table.tableName, ttlDays: TTL_DAYS, now }),
  );

  it('keeps the lease only while pending and stores the TTL in epoch seconds', async () => {
    const store = createStore();
    const key = newConversation();
    const { claim: turnClaim } = await claim(store, key, 'request-1');
    const pending = await readRawItem(key, 1);
    expect(pending?.item).toMatchObject({ v: { N: '1' }, status: { S: 'pending' }, leaseExpiresAt: { N: String(NOW + 60_000) } });

    await store.completeTurn(turnClaim, sampleTurnMessages(1), sampleResult(key, 1));

    const complete = await readRawItem(key, 1);
    expect(complete?.item).toMatchObject({
      status: { S: 'complete' },
      expiresAt: { N: String(NOW / 1000 + TTL_DAYS * 86_400) },
      requestId: { S: 'request-1' },
    });
    expect(complete?.item.leaseExpiresAt).toBeUndefined();
    expect(complete?.item.messages?.B).toBeInstanceOf(Uint8Array);
  });

  it('stores a turn with a 1 MB tool output under the item limit, cutting only the stored tool output', async () => {
    // Prepare
    const store = createStore();
    const key = newConversation();
    const output = incompressibleText(1_000_000);
    const { claim: turnClaim } = await claim(store, key, 'request-1');
    // Act
    await store.completeTurn(turnClaim, turnWithToolOutput(output), sampleResult(key, 1));
    // Assess
    const raw = await readRawItem(key, 1);
    expect(raw?.bytes).toBeLessThan(DYNAMODB_ITEM_LIMIT);
    const [stored] = await store.getConversation(key);
    const toolMessage = stored?.messages[2] as ToolMessage;
    const marker = /\n…\[truncated for storage: kept (\d+) of 1000000 characters\]$/.exec(toolMessage.content);
    expect(marker).not.toBeNull();
    const kept = Number(marker?.[1]);
    expect(kept).toBeGreaterThan(100_000);
    expect(toolMessage.content.slice(0, kept)).toBe(output.slice(0, kept));
    expect(stored?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(historyViolations(stored?.messages ?? [])).toEqual([]);
    expect(stored?.result).toEqual(sampleResult(key, 1));
    const next = await claim(store, key, 'request-2');
    expect(next.history).toEqual(stored?.messages);
  });

  it('rejects a turn whose assistant text alone is too large with turn_too_large, writing nothing', async () => {
    const store = createStore();
    const key = newConversation();
    const { claim: turnClaim } = await claim(store, key, 'request-1');

    await expectStoreError(
      store.completeTurn(turnClaim, turnWithToolOutput('small output', incompressibleText(600_000)), sampleResult(key, 1)),
      'turn_too_large',
    );

    const raw = await readRawItem(key, 1);
    expect(raw?.item.status).toEqual({ S: 'pending' });
    expect(raw?.item.messages).toBeUndefined();
    await store.releaseTurn(turnClaim);
    expect(await readRawItem(key, 1)).toBeUndefined();
    expect((await claim(store, key, 'request-1')).claim.turn).toBe(1);
  });

  describe('requests per turn', () => {
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
      countingStore = createStore(DynamoDBDocumentClient.from(client));
    });

    it('begins a turn with one Query and one PutItem, and completes it with one UpdateItem', async () => {
      const key = newConversation();
      for (let turn = 1; turn <= 5; turn += 1) await storeTurn(countingStore, key);
      commands = [];

      const { claim: turnClaim } = await claim(countingStore, key, 'request-6');
      await countingStore.completeTurn(turnClaim, sampleTurnMessages(6), sampleResult(key, 6));

      expect(commands).toEqual(['QueryCommand', 'PutItemCommand', 'UpdateItemCommand']);
    });

    it('reads further Query pages only while the history budget allows', async () => {
      // Prepare: six turns of about 300 KB each, more than one 1 MB Query page
      const key = newConversation();
      const turns = Array.from({ length: 6 }, () => turnWithToolOutput(incompressibleText(400_000)));
      for (const messages of turns) {
        const { claim: turnClaim } = await claim(countingStore, key, `writer-${turns.indexOf(messages)}`);
        await countingStore.completeTurn(turnClaim, messages, sampleResult(key, turnClaim.turn));
      }

      commands = [];
      const everything = await claim(countingStore, key, 'reader-all', 10_000_000);
      await countingStore.releaseTurn(everything.claim);
      expect(everything.history).toEqual(turns.flat());
      expect(commands.filter((command) => command === 'QueryCommand')).toHaveLength(2);

      commands = [];
      const newestOnly = await claim(countingStore, key, 'reader-newest', 150_000);
      await countingStore.releaseTurn(newestOnly.claim);
      // The newest turn whole, after the question and answer of the one before it, which did not fit.
      expect(newestOnly.history).toEqual([...condenseTurn(turns[4]!), ...turns[5]!]);
      expect(commands.filter((command) => command === 'QueryCommand')).toHaveLength(1);
    });
  });

  describe('errors', () => {
    it('refuses an item written with an unknown item version', async () => {
      const store = createStore();
      const key = newConversation();
      await table.documentClient.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { pk: conversationPartitionKey(key), sk: 1, v: 2, requestId: 'future', status: 'complete' },
        }),
      );
      await expectStoreError(claim(store, key, 'request-2'), 'unsupported_item_version');
      await expectStoreError(store.getConversation(key), 'unsupported_item_version');
    });

    it('wraps a DynamoDB failure in store_unavailable, keeping the SDK error as its cause', async () => {
      const store = createStore(table.documentClient, 'no-such-table');
      const error = await expectStoreError(claim(store, newConversation(), 'request-1'), 'store_unavailable');
      expect(error.message).toContain('no-such-table');
      expect(error.cause).toMatchObject({ name: 'ResourceNotFoundException' });
    });
  });
});

describe('startDynalite', () => {
  it('keeps the data of a folder across a restart', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'dynalite-'));
    try {
      const key = newConversation();
      const first = await startLocalTable({ path: folder });
      await storeTurn(createStore(first.documentClient, first.tableName), key, 'request-1');
      await first.close();

      const second = await startLocalTable({ path: folder });
      const turns = await createStore(second.documentClient, second.tableName).getConversation(key);
      await second.close();

      expect(turns.map((turn) => [turn.turn, turn.requestId])).toEqual([[1, 'request-1']]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
