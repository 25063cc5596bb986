/**
 * Where `npm run eval` keeps its conversations: in memory by default (each configuration its own
 * store, gone when the run ends), or with --data-dir in dynalite under that folder, exactly where
 * `npm start` keeps its own with LOCAL_DATA_DIR set to the same folder, so a failing turn's trace
 * route can be opened afterwards (GET /conversations/{id}/turns/{turn}/trace, the chat page).
 */
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createMemoryConversationStore } from '../lib/adapters/memory/conversation-store.ts';
import { createMemoryNoteStore } from '../lib/adapters/memory/note-store.ts';
import type { ConversationStore } from '../lib/core/ports/conversation-store.ts';
import type { NoteStore } from '../lib/core/ports/notes.ts';
import type { Environment } from '../lib/config/environment.ts';
import type { AgentConfig } from '../lib/config/load.ts';
import { dynamoConnection } from '../lib/local/dynamo-connection.ts';
import { ensureTable, startDynalite, type LocalDynamo } from '../lib/local/dynalite.ts';

export interface EvalStore {
  /** The store options of buildAgent for one configuration (its table, when it is dynalite). */
  forConfiguration(config: AgentConfig): Promise<{ store: ConversationStore; notes: NoteStore } | { documentClient: DynamoDBDocumentClient }>;
  /** Where the conversations are, said to the user. */
  description: string;
  close(): Promise<void>;
}

export async function openEvalStore(dataDir: string | undefined, environment: Environment): Promise<EvalStore> {
  if (!dataDir) {
    return {
      forConfiguration: async () => ({ store: createMemoryConversationStore(), notes: createMemoryNoteStore() }),
      description: 'in memory',
      close: async () => {},
    };
  }
  // The same folder layout as npm start (functions/local.ts): <LOCAL_DATA_DIR>/dynalite.
  const path = resolve(dataDir, 'dynalite');
  let dynamo: LocalDynamo;
  try {
    dynamo = await startDynalite({ path });
  } catch (error) {
    // LevelDB allows one process per folder: typically npm start is running on it.
    throw new Error(`cannot open the conversations under ${path} (is npm start running on the same folder?): ${(error as Error).message}`, { cause: error });
  }
  const client = new DynamoDBClient(dynamoConnection(dynamo.endpoint, environment));
  const documentClient = DynamoDBDocumentClient.from(client);
  return {
    forConfiguration: async (config) => {
      await ensureTable(client, config.conversation.tableName);
      return { documentClient };
    },
    description: `an embedded DynamoDB (dynalite) under ${path}`,
    close: async () => {
      client.destroy();
      await dynamo.close();
    },
  };
}
