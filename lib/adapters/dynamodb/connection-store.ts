/**
 * Per-user connections in the conversation table (keys.ts): one item per owner and server (sealed
 * tokens, a version for conditional writes), one per authorization in progress (deleted as it is
 * read, so a state works once; the table's TTL removes the ones never completed), one per server
 * for its registered client and one for its tool catalog. Sort key 0 throughout.
 *
 *   write connection   Put  if version = expected   (a refresh that lost the race stores nothing)
 *   forget connection  Delete if version = expected (never the tokens another process just renewed)
 *   take pending       Delete ReturnValues ALL_OLD  (two callbacks with one state: one gets it)
 *   put client         Put  if attribute_not_exists (two registrations at once: the first wins)
 */
import type { DynamoDocuments } from './documents.ts';
import type { ConnectionStore, PendingAuthorization, StoredCatalog, StoredClient, StoredConnection } from '../mcp/per-user/connection-store.ts';
import { isConditionalCheckFailed, storeUnavailable } from './errors.ts';
import { connectionCatalogPartitionKey, connectionClientPartitionKey, connectionPartitionKey, pendingAuthorizationPartitionKey } from './keys.ts';

interface DynamoConnectionStoreOptions {
  client: DynamoDocuments;
  tableName: string;
}

export function createDynamoConnectionStore(options: DynamoConnectionStoreOptions): ConnectionStore {
  const { client, tableName } = options;

  async function get(pk: string): Promise<Record<string, unknown> | undefined> {
    try {
      const output = await client.get({ TableName: tableName, Key: { pk, sk: 0 }, ConsistentRead: true });
      return output.Item;
    } catch (error) {
      throw storeUnavailable('GetItem', tableName, error);
    }
  }

  async function put(item: Record<string, unknown>, condition?: { expression: string; values?: Record<string, unknown> }): Promise<boolean> {
    try {
      await client.put({
        TableName: tableName,
        Item: { sk: 0, ...item },
        ...(condition ? { ConditionExpression: condition.expression } : {}),
        ...(condition?.values ? { ExpressionAttributeValues: condition.values } : {}),
      });
      return true;
    } catch (error) {
      if (condition && isConditionalCheckFailed(error)) return false;
      throw storeUnavailable('PutItem', tableName, error);
    }
  }

  async function remove(pk: string, version?: number): Promise<Record<string, unknown> | undefined> {
    try {
      const output = await client.delete({
        TableName: tableName,
        Key: { pk, sk: 0 },
        ReturnValues: 'ALL_OLD',
        ...(version === undefined ? {} : { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': version } }),
      });
      return output.Attributes;
    } catch (error) {
      // A newer version (another process renewed) is kept.
      if (version !== undefined && isConditionalCheckFailed(error)) return undefined;
      throw storeUnavailable('DeleteItem', tableName, error);
    }
  }

  return {
    async readConnection(owner, server) {
      const item = await get(connectionPartitionKey(owner, server));
      return item ? connectionOf(item, owner, server) : undefined;
    },
    async writeConnection(record, expected) {
      const item = {
        pk: connectionPartitionKey(record.owner, record.server),
        sealed: record.sealed,
        version: record.version,
        connectedAt: record.connectedAt,
        scopes: record.scopes,
        ...(record.tokenExpiresAt ? { tokenExpiresAt: record.tokenExpiresAt } : {}),
      };
      return put(item, expected === 'any' ? undefined : { expression: 'version = :version', values: { ':version': expected.version } });
    },
    async deleteConnection(owner, server, version) {
      await remove(connectionPartitionKey(owner, server), version);
    },
    async putPending(record) {
      await put({
        pk: pendingAuthorizationPartitionKey(record.stateHash),
        ...(record.owner === undefined ? {} : { owner: record.owner }),
        server: record.server,
        sealed: record.sealed,
        validUntil: record.expiresAt,
        // The table's TTL attribute (epoch seconds): a state never used is deleted some time after.
        expiresAt: Math.ceil(record.expiresAt / 1000),
      });
    },
    async takePending(stateHash) {
      const item = await remove(pendingAuthorizationPartitionKey(stateHash));
      if (!item) return undefined;
      return {
        stateHash,
        owner: typeof item.owner === 'string' ? item.owner : undefined,
        server: String(item.server),
        sealed: String(item.sealed),
        expiresAt: Number(item.validUntil),
      } satisfies PendingAuthorization;
    },
    async readClient(server) {
      const item = await get(connectionClientPartitionKey(server));
      return item ? { server, redirectUrl: String(item.redirectUrl), sealed: String(item.sealed) } : undefined;
    },
    async putClientIfAbsent(record) {
      const stored = await put({ pk: connectionClientPartitionKey(record.server), redirectUrl: record.redirectUrl, sealed: record.sealed }, { expression: 'attribute_not_exists(pk)' });
      if (stored) return record;
      const winner = await get(connectionClientPartitionKey(record.server));
      return winner ? { server: record.server, redirectUrl: String(winner.redirectUrl), sealed: String(winner.sealed) } satisfies StoredClient : record;
    },
    async deleteClient(server) {
      await remove(connectionClientPartitionKey(server));
    },
    async readCatalog(server) {
      const item = await get(connectionCatalogPartitionKey(server));
      return item ? ({ server, tools: String(item.tools), listedAt: String(item.listedAt) } satisfies StoredCatalog) : undefined;
    },
    async writeCatalog(record) {
      await put({ pk: connectionCatalogPartitionKey(record.server), tools: record.tools, listedAt: record.listedAt });
    },
  };
}

function connectionOf(item: Record<string, unknown>, owner: string | undefined, server: string): StoredConnection {
  return {
    owner,
    server,
    sealed: String(item.sealed),
    version: Number(item.version),
    connectedAt: String(item.connectedAt),
    scopes: Array.isArray(item.scopes) ? item.scopes.map(String) : [],
    ...(typeof item.tokenExpiresAt === 'string' ? { tokenExpiresAt: item.tokenExpiresAt } : {}),
  };
}
