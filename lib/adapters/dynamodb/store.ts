import type { DynamoDocuments } from './documents.ts';
import { StoreError, TurnTakenError } from '../../core/errors.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { ConversationKey, ConversationStore, PageRequest, StoreCallOptions, TurnExpectation, TurnPage, TurnRecord, TurnWrite } from '../../core/ports/conversation-store.ts';
import { deleteConversationItems } from './delete.ts';
import { isConditionalCheckFailed, storeUnavailable } from './errors.ts';
import { fitMessagesForStorage, STORED_ITEM_TARGET_BYTES } from './fit.ts';
import { expiresAtSeconds, readHolder, readTurnItem, turnItem, type ItemHolder, type TurnItem } from './item.ts';
import { itemSizeBytes } from './item-size.ts';
import { conversationPartitionKey } from './keys.ts';
import { queryConversationPages } from './query.ts';
import { createTurnInput, readBackInput, removeTurnInput, renewLeaseInput, updateTurnInput } from './writes.ts';

interface DynamoConversationStoreOptions {
  /** With the request timeouts of conversation.*: the lean client (lean-documents.ts) or an SDK document client, wrapped (sdk-documents.ts). */
  client: DynamoDocuments;
  tableName: string;
  /** Each turn is kept this long after it was last written (the table's TTL). */
  ttlDays: number;
  /** ms epoch; injectable for tests. */
  now?: () => number;
}

/**
 * Conversations in one DynamoDB table, one item per turn. A turn costs one Query (none for the
 * first turn of a conversation made for its request) and two conditional writes (claim, complete), plus two per round whose calls may change something (the
 * round record, before and after), whatever its number of rounds. No transactions, so the local
 * emulators run it as production does.
 */
export function createDynamoConversationStore(options: DynamoConversationStoreOptions): ConversationStore {
  const { client, tableName, ttlDays } = options;
  const now = options.now ?? Date.now;
  let lastWrittenAt = 0;
  /** Strictly increasing, so two writes in one millisecond still come in order. */
  const writeTime = () => (lastWrittenAt = Math.max(now(), lastWrittenAt + 1));

  /** The item of a write, its tool outputs cut (in the stored copy only) when it would not fit. */
  function itemOf(key: ConversationKey, turn: number, write: TurnWrite): TurnItem {
    const pk = conversationPartitionKey(key);
    const times = { expiresAt: expiresAtSeconds(now(), ttlDays), writtenAt: writeTime() };
    const build = (messages: readonly HistoryMessage[]) => turnItem(pk, turn, write, messages, times);
    const fit = fitMessagesForStorage(write.messages, (candidate) => itemSizeBytes({ ...build(candidate) }));
    if (!fit.fits) {
      throw new StoreError(
        'turn_too_large',
        `Turn ${turn} needs ${fit.smallestBytes} bytes even with every tool output cut, over the ${STORED_ITEM_TARGET_BYTES}-byte limit for a stored turn (DynamoDB items hold 400 KB).`,
      );
    }
    return build(fit.messages);
  }

  /** What is at (key, turn) now, after a condition failed; undefined when nothing is. */
  async function readBack(key: ConversationKey, turn: number, operation: string, options: StoreCallOptions): Promise<ItemHolder | undefined> {
    try {
      const output = await client.get(readBackInput(tableName, { pk: conversationPartitionKey(key), sk: turn }), sendOptions(options));
      return output.Item ? readHolder(output.Item) : undefined;
    } catch (error) {
      throw storeUnavailable(`${operation} (reading back after a failed condition)`, tableName, error);
    }
  }

  async function readRecent(key: ConversationKey, wantsMore: (readSoFar: readonly TurnRecord[]) => boolean, options: StoreCallOptions = {}): Promise<TurnRecord[]> {
    const records: TurnRecord[] = [];
    // One Query, newest first; a further page only while the caller wants more.
    for await (const page of queryConversationPages({ client, tableName, key, newestFirst: true, ...options })) {
      records.push(...page.map(readTurnItem));
      if (!wantsMore(records)) break;
    }
    return records;
  }

  async function readAll(key: ConversationKey): Promise<TurnRecord[]> {
    const records: TurnRecord[] = [];
    for await (const page of queryConversationPages({ client, tableName, key, newestFirst: false })) records.push(...page.map(readTurnItem));
    return records;
  }

  /**
   * One Query (Limit = limit + 1, from the turn after `after`): the one turn past the page says
   * whether more remain, so the last page never points at an empty one. A request cut at 1 MB is
   * followed by another until the page is full.
   */
  async function readPage(key: ConversationKey, page: PageRequest, options: StoreCallOptions = {}): Promise<TurnPage> {
    const records: TurnRecord[] = [];
    const query = { client, tableName, key, newestFirst: false, pageLimit: page.limit + 1, ...(page.after === undefined ? {} : { afterTurn: page.after }), ...options };
    for await (const items of queryConversationPages(query)) {
      records.push(...items.map(readTurnItem));
      if (records.length > page.limit) break;
    }
    return { records: records.slice(0, page.limit), more: records.length > page.limit };
  }

  async function create(key: ConversationKey, turn: number, write: TurnWrite, options: StoreCallOptions = {}): Promise<void> {
    const item = itemOf(key, turn, write);
    try {
      await client.put(createTurnInput(tableName, item), sendOptions(options));
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw storeUnavailable('PutItem', tableName, error);
      const current = await readBack(key, turn, 'PutItem', options);
      // Our own claim, whose first answer was lost: the SDK's retry found it.
      if (current?.claimId === write.claimId) return;
      throw new TurnTakenError(`Turn ${turn} was claimed by another request first.`, current, { cause: error });
    }
  }

  async function update(key: ConversationKey, turn: number, expected: TurnExpectation, write: TurnWrite, options: StoreCallOptions = {}): Promise<void> {
    const item = itemOf(key, turn, write);
    try {
      await client.put(updateTurnInput(tableName, item, expected), sendOptions(options));
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw storeUnavailable('PutItem', tableName, error);
      const current = await readBack(key, turn, 'PutItem', options);
      // Our own write, whose first answer was lost.
      if (current?.claimId === write.claimId && current.status === write.status) return;
      throw new TurnTakenError(`Turn ${turn} is no longer held by this request (${current ? `it is ${current.status}` : 'it was deleted'}).`, current, { cause: error });
    }
  }

  async function renewLease(key: ConversationKey, turn: number, expected: TurnExpectation, leaseExpiresAt: number, options: StoreCallOptions = {}): Promise<void> {
    const itemKey = { pk: conversationPartitionKey(key), sk: turn };
    try {
      await client.update(renewLeaseInput(tableName, itemKey, expected, leaseExpiresAt), sendOptions(options));
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw storeUnavailable('UpdateItem (lease)', tableName, error);
      const current = await readBack(key, turn, 'UpdateItem (lease)', options);
      // Still ours, with this end or a later one (this renewal's first answer was lost, or a record carried it).
      if (current?.claimId === expected.claimId && current.status === expected.status && (current.leaseExpiresAt ?? 0) >= leaseExpiresAt) return;
      throw new TurnTakenError(`Turn ${turn} is no longer held by this request (${current ? `it is ${current.status}` : 'it was deleted'}).`, current, { cause: error });
    }
  }

  async function remove(key: ConversationKey, turn: number, expected: TurnExpectation, options: StoreCallOptions = {}): Promise<void> {
    try {
      await client.delete(removeTurnInput(tableName, { pk: conversationPartitionKey(key), sk: turn }, expected), sendOptions(options));
    } catch (error) {
      // The turn is already gone or no longer ours: there is nothing left to give back.
      if (!isConditionalCheckFailed(error)) throw storeUnavailable('DeleteItem', tableName, error);
    }
  }

  return {
    readRecent,
    readAll,
    readPage,
    create,
    update,
    renewLease,
    remove,
    deleteConversation: (key) => deleteConversationItems(client, tableName, key),
  };
}

/** The SDK ends a request, and its own retries, when the signal aborts. */
export const sendOptions = (options: StoreCallOptions) => (options.signal ? { abortSignal: options.signal } : {});
