import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayStartMs } from '../../lib/core/budget.ts';
import { conversationPartitionKey, ownerTokensPartitionKey, ownerTurnsPartitionKey } from '../../lib/adapters/dynamodb/keys.ts';
import { createDynamoOwnerCounters } from '../../lib/adapters/dynamodb/owner-counters.ts';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { claimWrite } from '../support/store-contract.ts';
import { ownerCountersContract } from '../support/owner-counters-contract.ts';
import { type LocalTable, startLocalTable } from '../support/dynalite.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable();
});
afterAll(async () => {
  await table?.close();
});

const createCounters = () => createDynamoOwnerCounters({ client: table.dynamo, tableName: table.tableName });
const rawItem = async (pk: string, sk: number) => (await table.documentClient.send(new GetCommand({ TableName: table.tableName, Key: { pk, sk }, ConsistentRead: true }))).Item;

describe('createDynamoOwnerCounters on dynalite', () => {
  ownerCountersContract(createCounters);

  it('keeps a day’s count in its own item, which the table’s TTL removes a day after the day ends', async () => {
    const day = 20_000;
    await createCounters().addTokens('alice', day, 42, 'call-1');
    const item = await rawItem('tokens:alice', day);
    expect(item).toMatchObject({ tokens: 42, lastCallId: 'call-1', expiresAt: dayStartMs(day + 2) / 1000 });
  });

  it('keeps a turn slot with its holder and lease, removed by the TTL a day after the lease ends', async () => {
    const leaseExpiresAt = Date.UTC(2024, 9, 4, 12, 5);
    const slot = await createDynamoOwnerCounters({ client: table.dynamo, tableName: table.tableName, random: () => 0 }).acquireTurnSlot('bob', { slots: 2, holder: 'claim-1', leaseExpiresAt, now: leaseExpiresAt - 60_000 });
    expect(slot).toEqual({ owner: 'bob', index: 0, holder: 'claim-1' });
    expect(await rawItem('turns:bob', 0)).toMatchObject({ holder: 'claim-1', leaseExpiresAt, expiresAt: leaseExpiresAt / 1000 + 86_400 });
  });

  it('never shares a partition with a conversation, whatever its owner or id', async () => {
    // A conversation's key always has a `#` after its (encoded) owner; the counters' keys have none.
    const owners = [undefined, 'alice', '-', 'tokens:alice', 'turns:bob', 'arn:aws:sts::123456789012:assumed-role/r/s', 'a#b'];
    for (const owner of owners) {
      for (const key of [ownerTokensPartitionKey(owner), ...(owner === undefined ? [] : [ownerTurnsPartitionKey(owner)])]) {
        expect(key).not.toContain('#');
        expect(conversationPartitionKey({ conversationId: 'x', ...(owner === undefined ? {} : { owner }) })).toContain('#');
      }
    }
    expect(new Set(owners.map((owner) => ownerTokensPartitionKey(owner))).size).toBe(owners.length);

    // And on the table: a conversation and the counters of the same owner live side by side.
    const store = createDynamoConversationStore({ client: table.dynamo, tableName: table.tableName, ttlDays: 30 });
    const counters = createCounters();
    await counters.addTokens('carol', 1, 5, 'call-1');
    await store.create({ conversationId: 'tokens', owner: 'carol' }, 1, claimWrite('claim-1', 'request-1'));
    expect(await counters.tokensOn('carol', 1)).toBe(5);
    expect(await store.readAll({ conversationId: 'tokens', owner: 'carol' })).toHaveLength(1);
  });
});
