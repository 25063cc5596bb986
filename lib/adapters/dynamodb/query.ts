import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DynamoDocuments } from './documents.ts';
import { conversationPartitionKey } from './keys.ts';
import { storeUnavailable } from './errors.ts';
import type { ConversationKey } from '../../core/ports/conversation-store.ts';

interface ConversationQuery {
  client: DynamoDocuments;
  tableName: string;
  key: ConversationKey;
  newestFirst: boolean;
  /** Only these attributes (keys only for a delete), else the whole item. */
  attributes?: string[];
  /** Items per request (DynamoDB's Limit); a request also stops at 1 MB. */
  pageLimit?: number;
  /** Start after this turn (in the query's order). */
  afterTurn?: number;
  signal?: AbortSignal;
}

/**
 * The items of one conversation, one page (up to 1 MB) at a time. The caller stops iterating when
 * it has read enough: no further page is requested then.
 *
 * Reads are strongly consistent: a turn completed a moment ago must be in the next turn's history,
 * and its claim must be seen by the next claimant.
 */
export async function* queryConversationPages(query: ConversationQuery): AsyncGenerator<Record<string, unknown>[]> {
  const names: Record<string, string> = { '#pk': 'pk' };
  query.attributes?.forEach((attribute, index) => (names[`#a${index}`] = attribute));
  const input: QueryCommandInput = {
    TableName: query.tableName,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ':pk': conversationPartitionKey(query.key) },
    ScanIndexForward: !query.newestFirst,
    ConsistentRead: true,
    ProjectionExpression: query.attributes?.map((_, index) => `#a${index}`).join(', '),
    Limit: query.pageLimit,
  };
  let startKey: Record<string, unknown> | undefined = query.afterTurn === undefined ? undefined : { pk: conversationPartitionKey(query.key), sk: query.afterTurn };
  do {
    let page;
    try {
      page = await query.client.query({ ...input, ExclusiveStartKey: startKey }, query.signal ? { abortSignal: query.signal } : {});
    } catch (error) {
      throw storeUnavailable('Query', query.tableName, error);
    }
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
