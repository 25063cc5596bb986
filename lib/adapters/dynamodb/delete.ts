import type { DynamoDocuments } from './documents.ts';
import { StoreError } from '../../core/errors.ts';
import type { ConversationKey } from '../../core/ports/conversation-store.ts';
import { storeUnavailable } from './errors.ts';
import { queryConversationPages } from './query.ts';

/** BatchWriteItem takes at most 25 requests. */
const BATCH_SIZE = 25;
const ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 50;

/**
 * Deletes every item of a conversation (complete turns and open claims) and returns how many.
 * Keys are read with a keys-only Query, then deleted 25 at a time; items DynamoDB leaves
 * unprocessed (throttling) are sent again with a growing pause.
 */
export async function deleteConversationItems(
  client: DynamoDocuments,
  tableName: string,
  key: ConversationKey,
): Promise<number> {
  const keys: Record<string, unknown>[] = [];
  for await (const page of queryConversationPages({ client, tableName, key, newestFirst: false, attributes: ['pk', 'sk'] })) {
    keys.push(...page);
  }
  await deleteItems(client, tableName, keys);
  return keys.length;
}

/** Deletes items by key, 25 at a time, sending again what DynamoDB leaves unprocessed. */
export async function deleteItems(client: DynamoDocuments, tableName: string, keys: Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < keys.length; start += BATCH_SIZE) {
    await deleteBatch(client, tableName, keys.slice(start, start + BATCH_SIZE));
  }
}

async function deleteBatch(client: DynamoDocuments, tableName: string, keys: Record<string, unknown>[]) {
  let requests = keys.map((itemKey) => ({ DeleteRequest: { Key: itemKey } }));
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    let output;
    try {
      output = await client.batchWrite({ RequestItems: { [tableName]: requests } });
    } catch (error) {
      throw storeUnavailable('BatchWriteItem', tableName, error);
    }
    const unprocessed = output.UnprocessedItems?.[tableName] ?? [];
    if (unprocessed.length === 0) return;
    requests = unprocessed.map((request) => ({ DeleteRequest: { Key: request.DeleteRequest?.Key ?? {} } }));
    if (attempt < ATTEMPTS) await sleep(FIRST_BACKOFF_MS * 2 ** (attempt - 1));
  }
  throw new StoreError(
    'store_unavailable',
    `DynamoDB left ${requests.length} items undeleted after ${ATTEMPTS} attempts; delete again.`,
  );
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
