import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDocuments } from '../../lib/adapters/dynamodb/documents.ts';
import { createLeanDynamoDocuments } from '../../lib/adapters/dynamodb/lean-documents.ts';
import { ENV } from '../../lib/config/environment.ts';
import { type DynamoConnection, dynamoConnection } from '../../lib/local/dynamo-connection.ts';
import { ensureTable, startDynalite } from '../../lib/local/dynalite.ts';

export interface LocalTable {
  endpoint: string;
  tableName: string;
  /** The region and keys every client of this table uses (see connectionEnvironment). */
  connection: DynamoConnection;
  client: DynamoDBClient;
  documentClient: DynamoDBDocumentClient;
  /** The lean client the functions use (lib/adapters/dynamodb/lean-documents.ts), on this table's endpoint. */
  dynamo: DynamoDocuments;
  close(): Promise<void>;
}

/**
 * A client for a test table's endpoint: the region and keys of the environment when set, else
 * placeholders an emulator accepts (the same for every client, which DynamoDB Local without
 * -sharedDb needs to show them all the same tables).
 */
export function createLocalClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient(dynamoConnection(endpoint, process.env));
}

/**
 * The lean DynamoDB client (what the functions and npm start use) for a test table's endpoint, with
 * the same region and keys as createLocalClient.
 */
export function createLocalDynamo(endpoint: string, options: { requestTimeoutMs?: number; onRequest?: (operation: string, body: Record<string, unknown>) => void } = {}): DynamoDocuments {
  const connection = dynamoConnection(endpoint, process.env);
  if (!connection.credentials || !connection.region) throw new Error(`a test table at ${endpoint} needs AWS_REGION and keys in the environment`);
  const credentials = connection.credentials;
  const { onRequest } = options;
  // Each request as it goes on the wire: its operation (after the dot of X-Amz-Target) and its JSON body.
  const counting: typeof fetch | undefined = onRequest
    ? (input, init) => {
        const target = new Headers(init?.headers).get('x-amz-target') ?? '';
        onRequest(target.slice(target.indexOf('.') + 1), JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>);
        return fetch(input, init);
      }
    : undefined;
  return createLeanDynamoDocuments({ endpoint, region: connection.region, credentials: async () => credentials, requestTimeoutMs: options.requestTimeoutMs ?? 5_000, ...(counting ? { fetch: counting } : {}) });
}

/**
 * A conversation table for a test. With DYNAMODB_ENDPOINT set (DynamoDB Local, LocalStack, ...),
 * a new table there with a unique name, deleted on close, so runs and files never share data.
 * Otherwise dynalite in this process, in memory, with the table ready.
 *
 * `path` asks for dynalite keeping its data in that folder (a restart test), whatever the
 * environment says.
 */
export async function startLocalTable(options: { path?: string; tableName?: string } = {}): Promise<LocalTable> {
  const endpoint = process.env[ENV.dynamodbEndpoint]?.trim();
  if (endpoint && options.path === undefined) {
    return startTableAt(endpoint, `${options.tableName ?? 'conversations-test'}-${randomUUID()}`, { deleteOnClose: true });
  }
  const dynamo = await startDynalite({ path: options.path });
  const table = await startTableAt(dynamo.endpoint, options.tableName ?? 'conversations-test', { deleteOnClose: false });
  return {
    ...table,
    close: async () => {
      await table.close();
      await dynamo.close();
    },
  };
}

/** The table `tableName` at `endpoint`, created when missing. */
export async function startTableAt(endpoint: string, tableName: string, options: { deleteOnClose: boolean }): Promise<LocalTable> {
  const client = createLocalClient(endpoint);
  await ensureTable(client, tableName);
  return {
    endpoint,
    tableName,
    connection: dynamoConnection(endpoint, process.env),
    client,
    documentClient: DynamoDBDocumentClient.from(client),
    dynamo: createLocalDynamo(endpoint),
    close: async () => {
      try {
        if (options.deleteOnClose) await client.send(new DeleteTableCommand({ TableName: tableName }));
      } finally {
        client.destroy();
      }
    },
  };
}
