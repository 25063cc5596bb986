import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { conversationPartitionKey } from '../../lib/adapters/dynamodb/keys.ts';
import { dynaliteAbstractLevels } from '../../lib/local/dynalite-iterators.ts';
import { startDynalite } from '../../lib/local/dynalite.ts';
import { newConversation, storeTurn } from '../support/store-contract.ts';
import { startTableAt } from '../support/dynalite.ts';

/** Every LevelDB iterator dynalite opens registers itself on its database until it is closed. */
function countOpenIterators() {
  const open = new Set<object>();
  for (const abstractLevel of dynaliteAbstractLevels()) {
    const prototype = abstractLevel.AbstractLevel.prototype;
    const attach = prototype.attachResource;
    const detach = prototype.detachResource;
    vi.spyOn(prototype, 'attachResource').mockImplementation(function (this: object, resource: object) {
      if (typeof (resource as { next?: unknown }).next === 'function') open.add(resource);
      attach.call(this, resource);
    });
    vi.spyOn(prototype, 'detachResource').mockImplementation(function (this: object, resource: object) {
      open.delete(resource);
      detach.call(this, resource);
    });
  }
  return open;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('dynalite with closeDynaliteIterators', () => {
  it.each([
    ['on disk', true],
    ['in memory', false],
  ])('closes the iterator of every Query and Scan (%s)', async (_, onDisk) => {
    // Prepare
    const open = countOpenIterators();
    const folder = onDisk ? await mkdtemp(join(tmpdir(), 'dynalite-iterators-')) : undefined;
    const dynamo = await startDynalite({ path: folder });
    const table = await startTableAt(dynamo.endpoint, 'iterators', { deleteOnClose: false });
    try {
      const store = createDynamoConversationStore({ client: table.dynamo, tableName: table.tableName, ttlDays: 1 });
      const key = newConversation();
      // Act: every turn reads the conversation with a Query that runs to its end
      for (let turn = 1; turn <= 20; turn++) {
        await store.readRecent(key, () => true);
        await storeTurn(store, key, turn);
      }
      await store.readAll(key);
      // ...a Query cut short by its Limit, and a Scan
      const page = await table.client.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: conversationPartitionKey(key) } },
          Limit: 2,
        }),
      );
      await table.client.send(new ScanCommand({ TableName: table.tableName, Limit: 3 }));
      // Assess: the reads returned data, and no iterator is left open once they are done (a
      // closing iterator detaches itself a moment after the response went out)
      expect(page.Items).toHaveLength(2);
      await vi.waitFor(() => expect(open.size).toBe(0), { timeout: 5_000, interval: 20 });
    } finally {
      await table.close();
      await dynamo.close();
      if (folder) await rm(folder, { recursive: true, force: true });
    }
  });
});
