import type { DeleteCommandInput, GetCommandInput, PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TurnExpectation } from '../../core/ports/conversation-store.ts';
import { itemStatus, type TurnItem } from './item.ts';

/**
 * The conditional writes of a turn's life. Their conditions keep two loops from running side by
 * side on one conversation and a turn from being stored half or twice:
 *
 *   create  Put    (pk, n)   if no item at (pk, n)                               -> else taken (409)
 *   update  Put    (pk, n)   if its claimId and status are the expected ones,
 *                            and it was written before this write                -> else taken
 *   renew   Update (pk, n)   SET leaseExpiresAt, if its claimId and status are
 *                            the expected ones and its lease ends earlier        -> else taken
 *   remove  Delete (pk, n)   if its claimId and status are the expected ones     -> else nothing to do
 *
 * A write whose condition fails is read back (GetItem) before it is called a conflict: DynamoDB
 * may answer 500 after a write that happened, the SDK then retries it, and the retry fails on the
 * very item the first attempt wrote. Finding its own claimId there, the write is a success.
 */

export function createTurnInput(tableName: string, item: TurnItem): PutCommandInput {
  return {
    TableName: tableName,
    Item: { ...item },
    // Why: the Query saw no item at this turn number, but another request may have claimed it
    // since. Only the first write to a (pk, sk) succeeds; the loser runs nothing.
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

export function updateTurnInput(tableName: string, item: TurnItem, expected: TurnExpectation): PutCommandInput {
  const held = heldBy(expected);
  return {
    TableName: tableName,
    // The whole item is replaced: attributes of the old status (a lease, an approval expiry) go.
    Item: { ...item },
    // Why the write time: a write the client gave up on may still land later; it must not undo a newer one.
    ConditionExpression: `${held.ConditionExpression} AND (attribute_not_exists(#writtenAt) OR #writtenAt < :writtenAt)`,
    ExpressionAttributeNames: { ...held.ExpressionAttributeNames, '#writtenAt': 'writtenAt' },
    ExpressionAttributeValues: { ...held.ExpressionAttributeValues, ':writtenAt': item.writtenAt },
  };
}

/**
 * A running turn's lease moved on, nothing else: not `writtenAt` either, which orders the turn's
 * whole-item writes (a renewal must not make a round record delayed behind it look stale).
 */
export function renewLeaseInput(tableName: string, key: { pk: string; sk: number }, expected: TurnExpectation, leaseExpiresAt: number): UpdateCommandInput {
  const held = heldBy(expected);
  return {
    TableName: tableName,
    Key: key,
    UpdateExpression: 'SET #leaseExpiresAt = :leaseExpiresAt',
    // Why the comparison: a renewal delayed on the network must not shorten a lease a later write set.
    ConditionExpression: `${held.ConditionExpression} AND (attribute_not_exists(#leaseExpiresAt) OR #leaseExpiresAt < :leaseExpiresAt)`,
    ExpressionAttributeNames: { ...held.ExpressionAttributeNames, '#leaseExpiresAt': 'leaseExpiresAt' },
    ExpressionAttributeValues: { ...held.ExpressionAttributeValues, ':leaseExpiresAt': leaseExpiresAt },
  };
}

export function removeTurnInput(tableName: string, key: { pk: string; sk: number }, expected: TurnExpectation): DeleteCommandInput {
  return { TableName: tableName, Key: key, ...heldBy(expected) };
}

/** The few attributes a failed condition is checked against. */
export function readBackInput(tableName: string, key: { pk: string; sk: number }): GetCommandInput {
  return {
    TableName: tableName,
    Key: key,
    ConsistentRead: true,
    ProjectionExpression: 'pk, sk, v, requestId, requestIds, claimId, #status, leaseExpiresAt',
    ExpressionAttributeNames: { '#status': 'status' },
  };
}

/**
 * Why: only the request holding the turn may write it, and only in the status it read. A version 1
 * item has no claimId; its request was its own claim.
 */
function heldBy(expected: TurnExpectation) {
  return {
    ConditionExpression: '(#claimId = :claimId OR (attribute_not_exists(#claimId) AND #requestId = :claimId)) AND #status = :status',
    ExpressionAttributeNames: { '#claimId': 'claimId', '#requestId': 'requestId', '#status': 'status' },
    ExpressionAttributeValues: { ':claimId': expected.claimId, ':status': itemStatus(expected.status) },
  };
}
