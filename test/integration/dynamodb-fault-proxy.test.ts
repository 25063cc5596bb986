/**
 * The DynamoDB fault proxy between the raw AWS SDK v3 client and dynalite: each fault does on the
 * wire what it says, and these tests record what the SDK's own retries make of it (the DynamoDB
 * client tries 4 times by default; throttles back off from a 1 s base, everything else from 25 ms).
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { createProxyClient, type FaultProxy, type ProxyClientOptions, startFaultProxy } from '../support/dynamodb-fault-proxy.ts';

let table: LocalTable;
let proxy: FaultProxy;
const clients: DynamoDBClient[] = [];

beforeAll(async () => {
  table = await startLocalTable({ tableName: 'fault-proxy' });
  proxy = await startFaultProxy({ target: table.endpoint });
});
beforeEach(() => proxy.clear());
afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
});
afterAll(async () => {
  await proxy?.close();
  await table?.close();
});

/** A client through the proxy, destroyed after the test. */
function clientThroughProxy(options: ProxyClientOptions = {}, endpoint = proxy.endpoint): DynamoDBClient {
  const client = createProxyClient(endpoint, options);
  clients.push(client);
  return client;
}

const newKey = () => ({ pk: { S: `fault-${randomUUID()}` }, sk: { N: '0' } });
type Key = ReturnType<typeof newKey>;

const putCommand = (key: Key, condition?: 'only-if-new') =>
  new PutItemCommand({
    TableName: table.tableName,
    Item: { ...key, note: { S: 'written' } },
    ...(condition ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
  });

const addOne = (key: Key) =>
  new UpdateItemCommand({
    TableName: table.tableName,
    Key: key,
    UpdateExpression: 'ADD #count :one',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':one': { N: '1' } },
  });

/** The item as dynalite holds it, read past the proxy. */
async function upstreamItem(key: Key) {
  const output = await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }));
  return output.Item;
}

describe('startFaultProxy', () => {
  it('passes requests and answers through unchanged when no fault is injected', async () => {
    // Prepare
    const documentClient = DynamoDBDocumentClient.from(clientThroughProxy());
    const key = { pk: `fault-${randomUUID()}`, sk: 0 };

    // Act
    await documentClient.send(new PutCommand({ TableName: table.tableName, Item: { ...key, note: 'plain' } }));
    const read = await documentClient.send(new GetCommand({ TableName: table.tableName, Key: key }));

    // Assess
    expect(read.Item).toEqual({ ...key, note: 'plain' });
    expect(proxy.log.entries).toMatchObject([
      { operation: 'PutItem', body: { Item: { note: { S: 'plain' } } }, fault: undefined, forwarded: true, upstreamStatus: 200, clientOutcome: 200 },
      { operation: 'GetItem', fault: undefined, forwarded: true, upstreamStatus: 200, clientOutcome: 200 },
    ]);
  });

  it('applies a fault only to requests of its operation whose body passes `when`, `times` times', async () => {
    const client = clientThroughProxy({ maxAttempts: 1 });
    const [other, target] = [newKey(), newKey()];
    const injected = proxy.inject({
      operation: 'PutItem',
      kind: 'throttle',
      when: (body) => (body.Item as Key).pk.S === target.pk.S,
    });

    await client.send(new GetItemCommand({ TableName: table.tableName, Key: target }));
    await client.send(putCommand(other));
    await expect(client.send(putCommand(target))).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    await client.send(putCommand(target));

    expect(injected.applied).toBe(1);
    expect(proxy.log.seen('PutItem')).toBe(3);
    expect(proxy.log.succeeded('PutItem')).toBe(2);
  });
});

describe('lose-response', () => {
  it('commits a conditional put, answers 500, and the SDK retry meets ConditionalCheckFailedException', async () => {
    const key = newKey();
    proxy.inject({ operation: 'PutItem', kind: 'lose-response' });

    const outcome = clientThroughProxy().send(putCommand(key, 'only-if-new'));

    await expect(outcome).rejects.toMatchObject({ name: 'ConditionalCheckFailedException', $metadata: { attempts: 2 } });
    expect(await upstreamItem(key)).toMatchObject({ note: { S: 'written' } });
    expect(proxy.log.entries.map((entry) => [entry.upstreamStatus, entry.clientOutcome])).toEqual([
      [200, 500],
      [400, 400],
    ]);
    expect(proxy.log.succeeded('PutItem')).toBe(1);
  });

  it('shows the client InternalServerError when it does not retry, though the put committed', async () => {
    const key = newKey();
    proxy.inject({ operation: 'PutItem', kind: 'lose-response' });

    await expect(clientThroughProxy({ maxAttempts: 1 }).send(putCommand(key))).rejects.toMatchObject({
      name: 'InternalServerError',
      $metadata: { httpStatusCode: 500, attempts: 1 },
    });
    expect(await upstreamItem(key)).toBeDefined();
  });

  it('applies a non-idempotent update twice: the committed one and the SDK retry', async () => {
    const key = newKey();
    proxy.inject({ operation: 'UpdateItem', kind: 'lose-response' });

    const output = await clientThroughProxy().send(addOne(key));

    expect(output.$metadata.attempts).toBe(2);
    expect(await upstreamItem(key)).toMatchObject({ count: { N: '2' } });
    expect(proxy.log.succeeded('UpdateItem')).toBe(2);
  });

  it("with how: 'reset', destroys the socket after the commit; the SDK names the ECONNRESET a TimeoutError", async () => {
    const [once, retried] = [newKey(), newKey()];
    proxy.inject({ operation: 'PutItem', kind: 'lose-response', how: 'reset', times: 2 });

    await expect(clientThroughProxy({ maxAttempts: 1 }).send(putCommand(once))).rejects.toMatchObject({
      name: 'TimeoutError',
      code: 'ECONNRESET',
    });
    await expect(clientThroughProxy().send(putCommand(retried, 'only-if-new'))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
      $metadata: { attempts: 2 },
    });

    expect(await upstreamItem(once)).toBeDefined();
    expect(await upstreamItem(retried)).toBeDefined();
    expect(proxy.log.entries.map((entry) => entry.clientOutcome)).toEqual(['reset', 'reset', 400]);
  });
});

describe('throttle', () => {
  it('answers 400 without forwarding; the SDK retries and the retry writes', async () => {
    const key = newKey();
    proxy.inject({ operation: 'PutItem', kind: 'throttle' });

    const output = await clientThroughProxy().send(putCommand(key, 'only-if-new'));

    expect(output.$metadata.attempts).toBe(2);
    expect(proxy.log.entries.map((entry) => [entry.fault, entry.forwarded, entry.clientOutcome])).toEqual([
      ['throttle', false, 400],
      [undefined, true, 200],
    ]);
    expect(await upstreamItem(key)).toBeDefined();
  });

  it('throttles every request for forMs after injection, and the SDK succeeds once the window has passed', async () => {
    const key = newKey();
    // Throttle retries wait a random part of 1 s, 2 s, 4 s...: attempts to spare make the outcome certain.
    proxy.inject({ operation: 'PutItem', kind: 'throttle', forMs: 150 });

    const output = await clientThroughProxy({ maxAttempts: 10 }).send(putCommand(key));

    expect(proxy.log.seen('PutItem')).toBe(output.$metadata.attempts);
    expect(proxy.log.forwarded('PutItem')).toBe(1);
    expect(proxy.log.entries.at(-1)).toMatchObject({ fault: undefined, upstreamStatus: 200 });
    expect(await upstreamItem(key)).toBeDefined();
  });

  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException'] as const)(
    'fails at once with %s when maxAttempts is 1, and nothing is written',
    async (error) => {
      const key = newKey();
      proxy.inject({ operation: 'PutItem', kind: 'throttle', error });

      await expect(clientThroughProxy({ maxAttempts: 1 }).send(putCommand(key))).rejects.toMatchObject({
        name: error,
        $metadata: { httpStatusCode: 400, attempts: 1 },
      });
      expect(await upstreamItem(key)).toBeUndefined();
    },
  );
});

describe('hang', () => {
  it('neither answers nor forwards: a client with a short requestTimeout fails with TimeoutError', async () => {
    const key = newKey();
    proxy.inject({ operation: 'PutItem', kind: 'hang', times: 2 });

    await expect(clientThroughProxy({ requestTimeout: 200, maxAttempts: 2 }).send(putCommand(key))).rejects.toMatchObject({
      name: 'TimeoutError',
      $metadata: { attempts: 2 },
    });
    expect(proxy.log.entries.map((entry) => [entry.forwarded, entry.clientOutcome])).toEqual([
      [false, 'hang'],
      [false, 'hang'],
    ]);
    expect(await upstreamItem(key)).toBeUndefined();
  });

  it('is ended by close(), so a client without timeouts is not left waiting', async () => {
    const ownProxy = await startFaultProxy({ target: table.endpoint });
    ownProxy.inject({ operation: 'PutItem', kind: 'hang' });
    const outcome = clientThroughProxy({ maxAttempts: 1 }, ownProxy.endpoint).send(putCommand(newKey()));
    await vi.waitFor(() => expect(ownProxy.log.seen('PutItem')).toBe(1));

    await ownProxy.close();

    await expect(outcome).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('outlasts a requestTimeout set without throwOnRequestTimeout: the SDK only logs a warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const ownProxy = await startFaultProxy({ target: table.endpoint });
    ownProxy.inject({ operation: 'PutItem', kind: 'hang' });
    const client = new DynamoDBClient({
      endpoint: ownProxy.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
      requestHandler: { requestTimeout: 100 },
    });
    clients.push(client);
    let settled = false;
    const outcome = client.send(putCommand(newKey()));
    outcome.then(
      () => (settled = true),
      () => (settled = true),
    );

    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringContaining('exceeded the configured 100 ms requestTimeout')), {
      timeout: 5_000,
    });
    expect(settled).toBe(false);

    await ownProxy.close();
    await expect(outcome).rejects.toMatchObject({ code: 'ECONNRESET' });
    warn.mockRestore();
  });
});

describe('reset', () => {
  it('destroys the socket without forwarding: a client that does not retry sees ECONNRESET', async () => {
    const key = newKey();
    proxy.inject({ operation: 'PutItem', kind: 'reset' });

    await expect(clientThroughProxy({ maxAttempts: 1 }).send(putCommand(key))).rejects.toMatchObject({
      name: 'TimeoutError',
      code: 'ECONNRESET',
    });
    expect(proxy.log.forwarded('PutItem')).toBe(0);
    expect(await upstreamItem(key)).toBeUndefined();
  });

  it('is retried by the SDK, and the retry writes', async () => {
    const key = newKey();
    proxy.inject({ operation: 'PutItem', kind: 'reset' });

    const output = await clientThroughProxy().send(putCommand(key, 'only-if-new'));

    expect(output.$metadata.attempts).toBe(2);
    expect(await upstreamItem(key)).toBeDefined();
  });
});

describe('delay', () => {
  it('forwards the request after the delay', async () => {
    const key = newKey();
    proxy.inject({ operation: 'PutItem', kind: 'delay', ms: 50 });

    const output = await clientThroughProxy().send(putCommand(key));

    expect(output.$metadata.attempts).toBe(1);
    expect(proxy.log.entries).toMatchObject([{ fault: 'delay', forwarded: true, upstreamStatus: 200, clientOutcome: 200 }]);
  });

  it('still forwards when the client timed out meanwhile: the late update lands after the retry', async () => {
    const key = newKey();
    // The client's 300 ms timer is set before the proxy's 1 s one, so the client always gives up first.
    proxy.inject({ operation: 'UpdateItem', kind: 'delay', ms: 1_000 });

    const output = await clientThroughProxy({ requestTimeout: 300 }).send(addOne(key));
    await vi.waitFor(() => expect(proxy.log.entries[0]?.upstreamStatus).toBe(200), { timeout: 5_000 });

    expect(output.$metadata.attempts).toBeGreaterThanOrEqual(2);
    expect(await upstreamItem(key)).toMatchObject({ count: { N: String(proxy.log.succeeded('UpdateItem')) } });
    expect(proxy.log.succeeded('UpdateItem')).toBeGreaterThanOrEqual(2);
  });
});
