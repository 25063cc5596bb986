import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentCommands } from '#dynamodb-commands';
import type { DynamoDocuments } from './documents.ts';

/**
 * The operations over a DynamoDBDocumentClient an embedder built (`buildAgent({ documentClient })`):
 * its region, credentials, retries and instrumentation are theirs. The commands are loaded on the
 * first operation (commands-on-first-use.ts says why).
 */
export function documentsFromClient(client: DynamoDBDocumentClient): DynamoDocuments {
  return {
    get: async (input, options) => client.send(new (await documentCommands()).GetCommand(input), options ?? {}),
    put: async (input, options) => client.send(new (await documentCommands()).PutCommand(input), options ?? {}),
    update: async (input, options) => client.send(new (await documentCommands()).UpdateCommand(input), options ?? {}),
    delete: async (input, options) => client.send(new (await documentCommands()).DeleteCommand(input), options ?? {}),
    query: async (input, options) => client.send(new (await documentCommands()).QueryCommand(input), options ?? {}),
    batchWrite: async (input, options) => client.send(new (await documentCommands()).BatchWriteCommand(input), options ?? {}),
  };
}
