import type { DeleteCommandInput, PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TurnClaim } from '../../core/ports.ts';
import type { TurnItem } from './item.ts';
import { conversationPartitionKey } from './keys.ts';

/**
 * The three conditional writes of a turn's life. Their conditions are what keeps two loops from
 * running side by side on one conversation and a turn from being stored half or twice:
 *
 *   beginTurn     Put    (pk, n+1) status=pending   if no item at (pk, n+1)           -> else 409
 *   completeTurn  Update (pk, n+1) status=complete  if requestId is ours and pending  -> else claim lost
 *   releaseTurn   Delete (pk, n+1)                  if requestId is ours and pending  -> else nothing to do
 */

export function claimTurnInput(tableName: string, item: TurnItem): PutCommandInput {
  return {
    TableName: tableName,
    Item: { ...item },
    // Why: the Query saw no item at this turn number, but another request may have claimed it
    // since. Only the first write to a (pk, sk) succeeds; the loser gets 409 and runs nothing.
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

export function completeTurnInput(tableName: string, claim: TurnClaim, item: TurnItem): UpdateCommandInput {
  return {
    TableName: tableName,
    Key: { pk: item.pk, sk: item.sk },
    UpdateExpression:
      'SET #status = :complete, #messages = :messages, #result = :result, #tokens = :tokens, ' +
      '#completedAt = :completedAt, #expiresAt = :expiresAt REMOVE #leaseExpiresAt',
    // Why: only the request holding the claim may complete it, and only once. If the claim was
    // released or the conversation deleted, the item is gone and this fails rather than creating a
    // turn out of nothing. A claim past its lease still completes when nobody removed it: the turn
    // is whole on its own, so the history stays valid.
    ConditionExpression: '#requestId = :requestId AND #status = :pending',
    ExpressionAttributeNames: {
      '#status': 'status',
      '#messages': 'messages',
      '#result': 'result',
      '#tokens': 'tokens',
      '#completedAt': 'completedAt',
      '#expiresAt': 'expiresAt',
      '#leaseExpiresAt': 'leaseExpiresAt',
      '#requestId': 'requestId',
    },
    ExpressionAttributeValues: {
      ':complete': 'complete',
      ':pending': 'pending',
      ':messages': item.messages,
      ':result': item.result,
      ':tokens': item.tokens,
      ':completedAt': item.completedAt,
      ':expiresAt': item.expiresAt,
      ':requestId': claim.requestId,
    },
  };
}

export function releaseTurnInput(tableName: string, claim: TurnClaim): DeleteCommandInput {
  return {
    TableName: tableName,
    Key: { pk: conversationPartitionKey(claim.key), sk: claim.turn },
    // Why: remove our own open claim only, never a completed turn or another request's claim.
    ConditionExpression: '#requestId = :requestId AND #status = :pending',
    ExpressionAttributeNames: { '#requestId': 'requestId', '#status': 'status' },
    ExpressionAttributeValues: { ':requestId': claim.requestId, ':pending': 'pending' },
  };
}
