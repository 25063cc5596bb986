import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynalite } from '../../lib/local/dynalite.ts';

export interface LocalTable {
  endpoint: string;
  tableName: string;
  client: DynamoDBClient;
  documentClient: DynamoDBDocumentClient;
  close(): Promise<void>;
}

/** A client for the local emulator: any region and credentials will do, nothing leaves the machine. */
export function createLocalClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Starts dynalite in this process (in memory, or in `path`) with the conversation table ready. */
export async function startLocalTable(options: { path?: string; tableName?: string } = {}): Promise<LocalTable> {
  const dynamo = await startDynalite({ path: options.path });
  const tableName = options.tableName ?? 'conversations-test';
  const client = createLocalClient(dynamo.endpoint);
  await ensureTable(client, tableName);
  return {
    endpoint: dynamo.endpoint,
    tableName,
    client,
    documentClient: DynamoDBDocumentClient.from(client),
    close: async () => {
      client.destroy();
      await dynamo.close();
    },
  };
}
