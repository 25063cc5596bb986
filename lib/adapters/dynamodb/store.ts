import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, StoreError } from '../../core/errors.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { BeginTurnInput, BeginTurnOutcome, ConversationKey, ConversationStore, StoredTurn, TurnClaim } from '../../core/ports.ts';
import type { TurnResult } from '../../core/turn.ts';
import { deleteConversationItems } from './delete.ts';
import { isConditionalCheckFailed, storeUnavailable } from './errors.ts';
import { fitMessagesForStorage, STORED_ITEM_TARGET_BYTES } from './fit.ts';
import { completedTurnItem, decodeMessages, decodeStoredTurn, expiresAtSeconds, pendingTurnItem, readTurnItem, type TurnItem } from './item.ts';
import { itemSizeBytes } from './item-size.ts';
import { conversationPartitionKey } from './keys.ts';
import { queryConversationPages } from './query.ts';
import { historyMessages, startTurnScan } from './turn-scan.ts';
import { claimTurnInput, completeTurnInput, releaseTurnInput } from './writes.ts';

export interface DynamoConversationStoreOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Each turn is kept this long after it was written (the table's TTL). */
  ttlDays: number;
  /** ms epoch; injectable for tests. */
  now?: () => number;
}

/**
 * Conversations in one DynamoDB table, one item per turn. A turn costs three requests whatever
 * its number of rounds: one Query (history + claim check), one conditional Put (claim), one
 * conditional Update (complete). No transactions, so the local emulator runs it as production does.
 */
export function createDynamoConversationStore(options: DynamoConversationStoreOptions): ConversationStore {
  const { client, tableName, ttlDays } = options;
  const now = options.now ?? Date.now;

  async function beginTurn(input: BeginTurnInput): Promise<BeginTurnOutcome> {
    const startedAt = now();
    const scan = startTurnScan<ReturnType<typeof readTurnItem>>({ ...input, now: startedAt });
    // One Query, newest first; a further page only while the history budget is not met. A retry is
    // recognised among the items this Query read: always the newest turns, back at least as far as
    // the budget reaches (whole 1 MB pages), which is where a client's retry finds its turn.
    for await (const page of queryConversationPages({ client, tableName, key: input.key, newestFirst: true })) {
      for (const item of page) scan.add(readTurnItem(item));
      if (!scan.wantsMore()) break;
    }
    const outcome = scan.result();
    if (outcome.kind === 'replay') return { kind: 'replay', turn: decodeStoredTurn(outcome.turn.item) };

    // Decoded before claiming, so an unreadable item cannot leave a claim behind.
    const history: HistoryMessage[] = historyMessages(outcome, (turn) => decodeMessages(turn.item));
    const claim: TurnClaim = {
      key: input.key,
      turn: outcome.nextTurn,
      requestId: input.requestId,
      createdAt: new Date(startedAt).toISOString(),
    };
    const item = pendingTurnItem(conversationPartitionKey(input.key), claim, {
      leaseExpiresAt: startedAt + input.leaseMs,
      expiresAt: expiresAtSeconds(startedAt, ttlDays),
    });
    try {
      await client.send(new PutCommand(claimTurnInput(tableName, item)));
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw storeUnavailable('PutItem', tableName, error);
      throw new ConflictError(
        'conversation_busy',
        `Another request claimed turn ${claim.turn} of this conversation first; retry when it has finished.`,
        { cause: error },
      );
    }
    return { kind: 'claimed', claim, history };
  }

  async function completeTurn(claim: TurnClaim, messages: HistoryMessage[], result: TurnResult): Promise<void> {
    const completedAt = now();
    const pk = conversationPartitionKey(claim.key);
    const build = (candidate: HistoryMessage[]) =>
      completedTurnItem(pk, claim, {
        messages: candidate,
        result,
        completedAt: new Date(completedAt).toISOString(),
        expiresAt: expiresAtSeconds(completedAt, ttlDays),
      });
    const fit = fitMessagesForStorage(messages, (candidate) => itemSizeBytes(toRecord(build(candidate))));
    if (!fit.fits) {
      throw new StoreError(
        'turn_too_large',
        `Turn ${claim.turn} needs ${fit.smallestBytes} bytes even with every tool output cut, over the ${STORED_ITEM_TARGET_BYTES}-byte limit for a stored turn (DynamoDB items hold 400 KB); nothing was stored.`,
      );
    }
    try {
      await client.send(new UpdateCommand(completeTurnInput(tableName, claim, build(fit.messages))));
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw storeUnavailable('UpdateItem', tableName, error);
      throw new StoreError(
        'turn_not_stored',
        `Turn ${claim.turn} is no longer claimed by request ${claim.requestId} (released, completed or deleted); it was not stored.`,
        { cause: error },
      );
    }
  }

  async function releaseTurn(claim: TurnClaim): Promise<void> {
    try {
      await client.send(new DeleteCommand(releaseTurnInput(tableName, claim)));
    } catch (error) {
      // The claim is already gone or no longer ours: there is nothing left to give back.
      if (!isConditionalCheckFailed(error)) throw storeUnavailable('DeleteItem', tableName, error);
    }
  }

  async function getConversation(key: ConversationKey): Promise<StoredTurn[]> {
    const turns: StoredTurn[] = [];
    for await (const page of queryConversationPages({ client, tableName, key, newestFirst: false })) {
      for (const raw of page) {
        const { status, item } = readTurnItem(raw);
        if (status === 'complete') turns.push(decodeStoredTurn(item));
      }
    }
    return turns;
  }

  return {
    beginTurn,
    completeTurn,
    releaseTurn,
    getConversation,
    deleteConversation: (key) => deleteConversationItems(client, tableName, key),
  };
}

const toRecord = (item: TurnItem): Record<string, unknown> => ({ ...item });
