import { afterAll, beforeAll, describe } from 'vitest';
import { createDynamoOwnerCounters } from '../../lib/adapters/dynamodb/owner-counters.ts';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { ownerCountersContract } from '../support/owner-counters-contract.ts';
import { conversationStoreContract } from '../support/store-contract.ts';
import { turnLifeContract } from '../support/turn-life-contract.ts';
import { type LocalTable, startTableAt } from '../support/dynalite.ts';
import { type DynamoDBLocal, dynamoDBLocalMissing, startDynamoDBLocal } from '../support/dynamodb-local.ts';

const TTL_DAYS = 30;
const missing = dynamoDBLocalMissing();
const title = 'createDynamoConversationStore on DynamoDB Local';
// The default reporter names a skipped file but not why: say it where it will be seen.
if (missing) console.warn(`DynamoDB Local tests skipped: ${missing}.`);

// The contract dynalite passes (dynamodb-store.test.ts), against Amazon's own emulator: one JVM
// for the whole file, since it takes seconds to start.
describe.skipIf(missing !== undefined)(missing ? `${title} (skipped: ${missing})` : title, () => {
  let dynamoDBLocal: DynamoDBLocal | undefined;
  let table: LocalTable | undefined;

  beforeAll(async () => {
    dynamoDBLocal = await startDynamoDBLocal();
    table = await startTableAt(dynamoDBLocal.endpoint, 'conversations-test', { deleteOnClose: true });
  }, 120_000);

  afterAll(async () => {
    await table?.close();
    await dynamoDBLocal?.stop();
  }, 30_000);

  conversationStoreContract(() => createDynamoConversationStore({ client: table!.dynamo, tableName: table!.tableName, ttlDays: TTL_DAYS }));

  describe('a turn’s life', () => {
    turnLifeContract(() => createDynamoConversationStore({ client: table!.dynamo, tableName: table!.tableName, ttlDays: TTL_DAYS }));
  });

  describe('the budgets’ owner counters', () => {
    ownerCountersContract(() => createDynamoOwnerCounters({ client: table!.dynamo, tableName: table!.tableName }));
  });
});
