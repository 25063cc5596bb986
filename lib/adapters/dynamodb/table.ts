import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The conversation table: one partition per conversation (scoped to its owner), one item per turn,
 * ordered by turn number. The CDK stack and the local emulator both build the table from here, so
 * the key schema is written down once.
 */
export const CONVERSATION_TABLE = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'N' },
  /** Epoch seconds after which DynamoDB may delete the item. */
  timeToLiveAttribute: 'expiresAt',
} as const;

/** The CreateTable request for the conversation table (on-demand capacity). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey } = CONVERSATION_TABLE;
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: partitionKey.name, AttributeType: partitionKey.type },
      { AttributeName: sortKey.name, AttributeType: sortKey.type },
    ],
    KeySchema: [
      { AttributeName: partitionKey.name, KeyType: 'HASH' },
      { AttributeName: sortKey.name, KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  };
}
