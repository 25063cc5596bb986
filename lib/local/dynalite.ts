import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { StoreError } from '../core/errors.ts';
import { createTableInput } from '../adapters/dynamodb/table.ts';
import { storeUnavailable } from '../adapters/dynamodb/errors.ts';
import { closeDynaliteIterators } from './dynalite-iterators.ts';
import { privateTree } from './private-folder.ts';

/**
 * The embedded DynamoDB for local runs and integration tests: dynalite speaks the DynamoDB wire
 * protocol (conditional writes, Query, BatchWriteItem; no transactions, no TTL deletion).
 */

/** dynalite ships no types; this is the part of its API used here. */
type DynaliteFactory = (options: { path?: string; createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }) => Server;

export interface LocalDynamo {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  close(): Promise<void>;
}

/** Starts dynalite on 127.0.0.1 and a free port; `path` keeps the data in that folder, else in memory. */
export async function startDynalite(options: { path?: string } = {}): Promise<LocalDynamo> {
  const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;
  // Without it every Query leaks an open LevelDB iterator (see dynalite-iterators.ts).
  closeDynaliteIterators();
  // Every conversation is in there: the folder and what is in it are its user's only (0700, 0600).
  if (options.path) await privateTree(options.path);
  // Tables are usable at once: the CREATING pause real DynamoDB has only slows local runs down.
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Clients keep connections alive; idle ones would hold the close open.
        server.closeIdleConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

const POLL_INTERVAL_MS = 100;
const ACTIVE_TIMEOUT_MS = 30_000;

/** Creates the conversation table when it is missing and waits until it is ACTIVE. Idempotent. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const status = await tableStatus(client, tableName);
  if (status === undefined) {
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
    } catch (error) {
      // Another process created it between our look and our create: that is the outcome we wanted.
      if (!(error instanceof Error && error.name === 'ResourceInUseException')) {
        throw storeUnavailable('CreateTable', tableName, error);
      }
    }
  }
  const deadline = Date.now() + ACTIVE_TIMEOUT_MS;
  while ((await tableStatus(client, tableName)) !== 'ACTIVE') {
    if (Date.now() > deadline) {
      throw new StoreError('store_unavailable', `Table "${tableName}" did not become ACTIVE within ${ACTIVE_TIMEOUT_MS / 1000} s.`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

async function tableStatus(client: DynamoDBClient, tableName: string): Promise<string | undefined> {
  try {
    const output = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return output.Table?.TableStatus;
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
    throw storeUnavailable('DescribeTable', tableName, error);
  }
}
