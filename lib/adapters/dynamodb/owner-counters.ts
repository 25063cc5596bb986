import type { DynamoDocuments } from './documents.ts';
import { dayStartMs } from '../../core/budget.ts';
import { TurnTakenError } from '../../core/errors.ts';
import type { OwnerCounters, TurnSlot } from '../../core/ports/owner-counters.ts';
import type { StoreCallOptions } from '../../core/ports/conversation-store.ts';
import { isConditionalCheckFailed, storeUnavailable } from './errors.ts';
import { ownerTokensPartitionKey, ownerTurnsPartitionKey } from './keys.ts';
import { sendOptions } from './store.ts';

interface DynamoOwnerCountersOptions {
  /** The conversation table's client: the counters live in the same table. */
  client: DynamoDocuments;
  tableName: string;
  /** Where a slot search starts; injectable for tests. */
  random?: () => number;
}

/** Counter items outlive what they count by a day, then the table's TTL removes them. */
const KEPT_AFTER_SECONDS = 86_400;

/**
 * The budget counters in the conversation table, beside the conversations (keys.ts says why they
 * can never meet one):
 *
 *   tokens:<owner>  sk = UTC day   {tokens, lastCallId, expiresAt}
 *     read    GetItem (consistent)                        once per turn, when a daily limit is set
 *     count   UpdateItem ADD tokens, SET lastCallId       once per model call, returns the day's total
 *             if lastCallId <> this call                  (a retried write is not counted twice)
 *   turns:<owner>   sk = slot      {holder, leaseExpiresAt, expiresAt}
 *     take    PutItem if no item, or its lease ended,     from a random slot on, until one is free
 *             or it is already this holder's              (usually the first)
 *     renew   UpdateItem SET leaseExpiresAt               while a long turn runs (lib/agent/turn/lease.ts)
 *             if holder = this holder
 *     give    DeleteItem if holder = this holder          once, when the turn ends or pauses
 *
 * Every item carries `expiresAt` (the table's TTL attribute): a day's item goes a day after the
 * day ends, a slot's a day after its lease, so nothing is left behind by owners who never return.
 */
export function createDynamoOwnerCounters(options: DynamoOwnerCountersOptions): OwnerCounters {
  const { client, tableName } = options;
  const random = options.random ?? Math.random;

  async function tokensOn(owner: string | undefined, day: number, callOptions: StoreCallOptions = {}): Promise<number> {
    try {
      const output = await client.get({ TableName: tableName, Key: { pk: ownerTokensPartitionKey(owner), sk: day }, ConsistentRead: true, ProjectionExpression: '#tokens', ExpressionAttributeNames: { '#tokens': 'tokens' } },
        sendOptions(callOptions),
      );
      return Number(output.Item?.tokens ?? 0);
    } catch (error) {
      throw storeUnavailable('GetItem (owner tokens)', tableName, error);
    }
  }

  async function addTokens(owner: string | undefined, day: number, tokens: number, callId: string, callOptions: StoreCallOptions = {}): Promise<number> {
    try {
      const output = await client.update({
          TableName: tableName,
          Key: { pk: ownerTokensPartitionKey(owner), sk: day },
          UpdateExpression: 'ADD #tokens :tokens SET #lastCallId = :callId, #expiresAt = :expiresAt',
          // Why: ADD is not idempotent. The SDK retries a write whose answer was lost; the retry
          // finds its own call id and changes nothing.
          ConditionExpression: 'attribute_not_exists(#lastCallId) OR #lastCallId <> :callId',
          ExpressionAttributeNames: { '#tokens': 'tokens', '#lastCallId': 'lastCallId', '#expiresAt': 'expiresAt' },
          ExpressionAttributeValues: { ':tokens': tokens, ':callId': callId, ':expiresAt': Math.floor(dayStartMs(day + 1) / 1000) + KEPT_AFTER_SECONDS },
          ReturnValues: 'UPDATED_NEW',
        },
        sendOptions(callOptions),
      );
      return Number(output.Attributes?.tokens ?? tokens);
    } catch (error) {
      // The call was counted already (by the first attempt of this very write): read the total.
      if (isConditionalCheckFailed(error)) return tokensOn(owner, day, callOptions);
      throw storeUnavailable('UpdateItem (owner tokens)', tableName, error);
    }
  }

  async function acquireTurnSlot(owner: string, request: Parameters<OwnerCounters['acquireTurnSlot']>[1], callOptions: StoreCallOptions = {}): Promise<TurnSlot | undefined> {
    // A random first slot: turns of one owner starting together rarely try the same slot.
    const first = Math.floor(random() * request.slots) % request.slots;
    for (let step = 0; step < request.slots; step++) {
      const index = (first + step) % request.slots;
      try {
        await client.put({
            TableName: tableName,
            Item: { pk: ownerTurnsPartitionKey(owner), sk: index, holder: request.holder, leaseExpiresAt: request.leaseExpiresAt, expiresAt: Math.ceil(request.leaseExpiresAt / 1000) + KEPT_AFTER_SECONDS },
            // Why: a slot is free when nobody holds it or its holder's lease ended (the process
            // died without giving it back); this holder's own earlier attempt (answer lost) is its.
            ConditionExpression: 'attribute_not_exists(pk) OR #leaseExpiresAt < :now OR #holder = :holder',
            ExpressionAttributeNames: { '#leaseExpiresAt': 'leaseExpiresAt', '#holder': 'holder' },
            ExpressionAttributeValues: { ':now': request.now, ':holder': request.holder },
          },
          sendOptions(callOptions),
        );
        return { owner, index, holder: request.holder };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw storeUnavailable('PutItem (turn slot)', tableName, error);
      }
    }
    return undefined;
  }

  async function renewTurnSlot(slot: TurnSlot, leaseExpiresAt: number, callOptions: StoreCallOptions = {}): Promise<void> {
    try {
      await client.update({
          TableName: tableName,
          Key: { pk: ownerTurnsPartitionKey(slot.owner), sk: slot.index },
          UpdateExpression: 'SET #leaseExpiresAt = :leaseExpiresAt, #expiresAt = :expiresAt',
          // Why: after its lease ended the slot may be another turn's; that one is not ours to keep.
          ConditionExpression: '#holder = :holder',
          ExpressionAttributeNames: { '#holder': 'holder', '#leaseExpiresAt': 'leaseExpiresAt', '#expiresAt': 'expiresAt' },
          ExpressionAttributeValues: { ':holder': slot.holder, ':leaseExpiresAt': leaseExpiresAt, ':expiresAt': Math.ceil(leaseExpiresAt / 1000) + KEPT_AFTER_SECONDS },
        },
        sendOptions(callOptions),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw new TurnTakenError(`Turn slot ${slot.index} is no longer held by this turn.`, undefined, { cause: error });
      throw storeUnavailable('UpdateItem (turn slot)', tableName, error);
    }
  }

  async function releaseTurnSlot(slot: TurnSlot, callOptions: StoreCallOptions = {}): Promise<void> {
    try {
      await client.delete({
          TableName: tableName,
          Key: { pk: ownerTurnsPartitionKey(slot.owner), sk: slot.index },
          // Why: after its lease ended the slot may be another turn's; that one is not ours to free.
          ConditionExpression: '#holder = :holder',
          ExpressionAttributeNames: { '#holder': 'holder' },
          ExpressionAttributeValues: { ':holder': slot.holder },
        },
        sendOptions(callOptions),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw storeUnavailable('DeleteItem (turn slot)', tableName, error);
    }
  }

  return { tokensOn, addTokens, acquireTurnSlot, renewTurnSlot, releaseTurnSlot };
}
