import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLeanDynamoDocuments, type LeanDynamoOptions } from '../../lib/adapters/dynamodb/lean-documents.ts';
import { leanDynamoFromEnvironment } from '../../lib/lean-dynamo.ts';
import { dynamoError, startSignedDynamoServer, type SignedDynamoServer } from '../support/signed-dynamodb-server.ts';

/**
 * The lean DynamoDB client the functions use (lib/adapters/dynamodb/lean-documents.ts), against a
 * local server that checks every request's SigV4 signature and answers as DynamoDB would: what it
 * sends, how it reads answers and errors, and how it retries, backs off, runs out of its retry
 * quota (and gets a conditional write's retry back), times out and stops when aborted, as the
 * AWS SDK's client does.
 */

const REGION = 'eu-west-1';
const CREDENTIALS = { accessKeyId: 'AKIDLEAN', secretAccessKey: 'lean-secret', sessionToken: 'session-token-1' };
const TABLE = 'conversations';

let server: SignedDynamoServer;
beforeAll(async () => {
  server = await startSignedDynamoServer({ credentials: CREDENTIALS, region: REGION });
});
afterEach(() => {
  server.requests.length = 0;
  server.answerAlways({ status: 200, body: {} });
});
afterAll(async () => {
  await server?.close();
});

/** No backoff pauses unless a test asks for them (random 0: full jitter waits nothing). */
const lean = (options: Partial<LeanDynamoOptions> = {}) =>
  createLeanDynamoDocuments({ endpoint: server.endpoint, region: REGION, credentials: async () => CREDENTIALS, requestTimeoutMs: 2_000, random: () => 0, ...options });

const internalError = { status: 500, body: dynamoError('InternalServerError', 'Internal server error') };
const conditionFailed = { status: 400, body: dynamoError('ConditionalCheckFailedException', 'The conditional request failed') };

describe('the lean DynamoDB client', () => {
  it('signs each request with SigV4 for dynamodb in its region, with the session token, and names the operation in X-Amz-Target', async () => {
    const dynamo = leanDynamoFromEnvironment(
      { requestTimeoutSeconds: 2, connectTimeoutSeconds: 1 },
      { AWS_ENDPOINT_URL_DYNAMODB: server.endpoint, AWS_REGION: REGION, AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey, AWS_SESSION_TOKEN: CREDENTIALS.sessionToken },
    );

    await dynamo.get({ TableName: TABLE, Key: { pk: 'a', sk: 1 } });
    await dynamo.put({ TableName: TABLE, Item: { pk: 'a', sk: 1 } });

    expect(server.requests.map((request) => [request.operation, request.signatureProblem])).toEqual([['GetItem', undefined], ['PutItem', undefined]]);
    for (const request of server.requests) {
      expect(request.headers).toMatchObject({ 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${request.operation}`, 'x-amz-security-token': CREDENTIALS.sessionToken });
      expect(String(request.headers.authorization)).toMatch(/SignedHeaders=[^,]*x-amz-security-token/);
      expect(String(request.headers.authorization)).toMatch(/SignedHeaders=[^,]*x-amz-target/);
    }
  });

  it('reads the settings every AWS client reads: AWS_ENDPOINT_URL, AWS_DEFAULT_REGION, AWS_MAX_ATTEMPTS, and keys in the environment before a profile', async () => {
    const dynamo = leanDynamoFromEnvironment(
      { requestTimeoutSeconds: 2, connectTimeoutSeconds: 1 },
      // A profile that does not exist: the keys beside it are what signs (the SDK's chain would fail on it).
      { AWS_ENDPOINT_URL: server.endpoint, AWS_DEFAULT_REGION: REGION, AWS_MAX_ATTEMPTS: '2', AWS_PROFILE: 'no-such-profile', AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey, AWS_SESSION_TOKEN: CREDENTIALS.sessionToken },
    );
    server.answerAlways(internalError);

    await expect(dynamo.get({ TableName: TABLE, Key: { pk: 'a' } })).rejects.toMatchObject({ name: 'InternalServerError', $metadata: { attempts: 2 } });

    expect(server.requests.map((request) => [request.operation, request.signatureProblem])).toEqual([['GetItem', undefined], ['GetItem', undefined]]);
  });

  it('corrects its clock from the Date of an answer when its signature expired, retries, and signs later requests with the corrected clock, as the SDK does', async () => {
    const ahead = await startSignedDynamoServer({ credentials: CREDENTIALS, region: REGION, clockAheadMs: 10 * 60_000 });
    try {
      const dynamo = lean({ endpoint: ahead.endpoint });

      await expect(dynamo.get({ TableName: TABLE, Key: { pk: 'a' } })).resolves.toMatchObject({ $metadata: { httpStatusCode: 200, attempts: 2 } });
      await expect(dynamo.put({ TableName: TABLE, Item: { pk: 'a' } })).resolves.toMatchObject({ $metadata: { attempts: 1 } });
      expect(ahead.requests.map((request) => request.signatureProblem)).toEqual([undefined, undefined, undefined]);
    } finally {
      await ahead.close();
    }
  });

  it('is refused by the server when it signs with other keys', async () => {
    const dynamo = lean({ credentials: async () => ({ ...CREDENTIALS, secretAccessKey: 'wrong' }) });

    await expect(dynamo.get({ TableName: TABLE, Key: { pk: 'a', sk: 1 } })).rejects.toMatchObject({ name: 'InvalidSignatureException', $fault: 'client', $metadata: { httpStatusCode: 403, attempts: 1 } });
    expect(server.requests[0]!.signatureProblem).toMatch(/signature/);
  });

  it('sends documents marshalled as the document client does, bytes as base64, undefined attributes left out, and reads answers back as documents', async () => {
    const bytes = new Uint8Array([0, 1, 2, 250]);
    server.answer({
      body: {
        Items: [{ pk: { S: 'a' }, sk: { N: '2' }, messages: { B: Buffer.from(bytes).toString('base64') }, nested: { M: { list: { L: [{ N: '1.5' }, { BOOL: true }, { NULL: true }] } } }, tags: { SS: ['x', 'y'] } }],
        LastEvaluatedKey: { pk: { S: 'a' }, sk: { N: '2' } },
        Count: 1,
      },
    });
    const dynamo = lean();

    const page = await dynamo.query({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'a', ':gone': undefined }, ExclusiveStartKey: { pk: 'a', sk: 1 }, ConsistentRead: true });
    await dynamo.put({ TableName: TABLE, Item: { pk: 'a', sk: 3, messages: bytes, skipped: undefined, deep: { list: [1, 'two', { three: undefined }] } } });

    expect(server.requests[0]!.body).toEqual({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: 'a' } },
      ExclusiveStartKey: { pk: { S: 'a' }, sk: { N: '1' } },
      ConsistentRead: true,
    });
    expect(server.requests[1]!.body).toEqual({
      TableName: TABLE,
      Item: { pk: { S: 'a' }, sk: { N: '3' }, messages: { B: 'AAEC+g==' }, deep: { M: { list: { L: [{ N: '1' }, { S: 'two' }, { M: {} }] } } } },
    });
    expect(page.Items).toEqual([{ pk: 'a', sk: 2, messages: bytes, nested: { list: [1.5, true, null] }, tags: new Set(['x', 'y']) }]);
    expect(page.Items![0]!.messages).toBeInstanceOf(Uint8Array);
    expect(page.LastEvaluatedKey).toEqual({ pk: 'a', sk: 2 });
    expect(page.Count).toBe(1);
    expect(page.$metadata).toMatchObject({ httpStatusCode: 200, attempts: 1, requestId: expect.stringMatching(/^request-/) });
  });

  it('sends the bytes of every binary the marshaller accepts (typed arrays, DataView, ArrayBuffer), never their JSON', async () => {
    const bytes = new Uint8Array([0, 1, 2, 250]);
    await lean().put({ TableName: TABLE, Item: { pk: 'a', int16: new Int16Array([1, -1]), view: new DataView(bytes.buffer, 1, 2), buffer: bytes.buffer, deep: { list: [new Uint16Array([258])] } } });

    expect(server.requests[0]!.body).toEqual({
      TableName: TABLE,
      Item: {
        pk: { S: 'a' },
        int16: { B: Buffer.from(new Int16Array([1, -1]).buffer).toString('base64') },
        view: { B: Buffer.from([1, 2]).toString('base64') },
        buffer: { B: 'AAEC+g==' },
        deep: { M: { list: { L: [{ B: Buffer.from(new Uint16Array([258]).buffer).toString('base64') }] } } },
      },
    });
  });

  it('marshals BatchWriteItem requests and reads their unprocessed items back as documents', async () => {
    server.answer({ body: { UnprocessedItems: { [TABLE]: [{ DeleteRequest: { Key: { pk: { S: 'b' }, sk: { N: '2' } } } }] } } });

    const output = await lean().batchWrite({ RequestItems: { [TABLE]: [{ DeleteRequest: { Key: { pk: 'a', sk: 1 } } }, { PutRequest: { Item: { pk: 'b', sk: 2, text: 'hi' } } }] } });

    expect(server.requests[0]!.body).toEqual({
      RequestItems: { [TABLE]: [{ DeleteRequest: { Key: { pk: { S: 'a' }, sk: { N: '1' } } } }, { PutRequest: { Item: { pk: { S: 'b' }, sk: { N: '2' }, text: { S: 'hi' } } } }] },
    });
    expect(output.UnprocessedItems).toEqual({ [TABLE]: [{ DeleteRequest: { Key: { pk: 'b', sk: 2 } } }] });
  });

  it('throws an error shaped as the SDK’s: the type after # as its name, $fault, $metadata, and the answer’s fields (the item, as a document)', async () => {
    server.answer({ status: 400, body: dynamoError('ConditionalCheckFailedException', 'The conditional request failed', { Item: { pk: { S: 'a' }, claimId: { S: 'other' } } }) });

    const error = await lean().put({ TableName: TABLE, Item: { pk: 'a', sk: 1 }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'ConditionalCheckFailedException',
      message: 'The conditional request failed',
      $fault: 'client',
      $metadata: { httpStatusCode: 400, requestId: expect.stringMatching(/^request-/), attempts: 1, totalRetryDelay: 0 },
      Item: { pk: 'a', claimId: 'other' },
    });
  });

  it('reads an empty successful answer as an empty output, as the SDK does', async () => {
    server.answer({ status: 200, raw: '' });

    await expect(lean().put({ TableName: TABLE, Item: { pk: 'a', sk: 1 } })).resolves.toEqual({ $metadata: expect.objectContaining({ httpStatusCode: 200, attempts: 1 }) });
  });

  it('fails, without retrying, on a successful answer that is not JSON, and says so in its $metadata', async () => {
    server.answer({ status: 200, raw: '<html>' });

    await expect(lean().get({ TableName: TABLE, Key: { pk: 'a' } })).rejects.toMatchObject({ message: expect.stringMatching(/not a JSON object/), $metadata: { httpStatusCode: 200, attempts: 1, totalRetryDelay: 0 } });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a proxy’s HTML 502 and an empty 503, and names what it cannot read by its status', async () => {
    const html = { status: 502, raw: '<html><body>Bad Gateway</body></html>', headers: { 'content-type': 'text/html' } };
    server.answer(html, { status: 503, raw: '' });
    await expect(lean().get({ TableName: TABLE, Key: { pk: 'a', sk: 1 } })).resolves.toMatchObject({ $metadata: { attempts: 3 } });

    server.answerAlways(html);
    await expect(lean().get({ TableName: TABLE, Key: { pk: 'a', sk: 1 } })).rejects.toMatchObject({ $fault: 'server', $metadata: { httpStatusCode: 502, attempts: 4 } });
    server.answerAlways({ status: 413, raw: '' });
    await expect(lean().get({ TableName: TABLE, Key: { pk: 'a', sk: 1 } })).rejects.toMatchObject({ $fault: 'client', $metadata: { httpStatusCode: 413, attempts: 1 } });
  });

  it('never retries another 4xx (ValidationException): one request', async () => {
    server.answer({ status: 400, body: dynamoError('ValidationException', 'One or more parameter values were invalid') });

    await expect(lean().get({ TableName: TABLE, Key: { pk: 'a' } })).rejects.toMatchObject({ name: 'ValidationException', $metadata: { attempts: 1 } });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 500 with full-jitter exponential backoff from 25 ms, and says how often it tried', async () => {
    server.answer(internalError, internalError);
    // random 1: each pause is its whole ceiling, 25 ms then 50 ms.
    const output = await lean({ random: () => 1 }).get({ TableName: TABLE, Key: { pk: 'a', sk: 1 } });

    expect(output.$metadata).toMatchObject({ attempts: 3, totalRetryDelay: 75 });
    const [first, second, third] = server.requests.map((request) => request.at);
    expect(second! - first!).toBeGreaterThanOrEqual(24);
    expect(third! - second!).toBeGreaterThanOrEqual(49);
  });

  it('retries throttling (ProvisionedThroughputExceededException, ThrottlingException, 429) with a 1 s backoff base', async () => {
    server.answer(
      { status: 400, body: dynamoError('ProvisionedThroughputExceededException', 'slow down') },
      { status: 400, body: { __type: 'com.amazon.coral.availability#ThrottlingException', message: 'Rate exceeded' } },
      { status: 429, body: {} },
    );
    // random 0.1: 100 ms, 200 ms, 400 ms (a tenth of 1 s, 2 s, 4 s).
    const output = await lean({ random: () => 0.1 }).put({ TableName: TABLE, Item: { pk: 'a', sk: 1 } });

    expect(output.$metadata).toMatchObject({ attempts: 4, totalRetryDelay: 700 });
    expect(server.requests).toHaveLength(4);
  });

  it('gives up after 4 attempts (AWS_MAX_ATTEMPTS changes it) with the last error', async () => {
    server.answerAlways(internalError);

    await expect(lean().get({ TableName: TABLE, Key: { pk: 'a' } })).rejects.toMatchObject({ name: 'InternalServerError', $fault: 'server', $metadata: { httpStatusCode: 500, attempts: 4 } });
    expect(server.requests).toHaveLength(4);

    server.requests.length = 0;
    const fromEnvironment = leanDynamoFromEnvironment({ requestTimeoutSeconds: 2, connectTimeoutSeconds: 1 }, { AWS_ENDPOINT_URL_DYNAMODB: server.endpoint, AWS_REGION: REGION, AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey, AWS_SESSION_TOKEN: CREDENTIALS.sessionToken, AWS_MAX_ATTEMPTS: '2' });
    await expect(fromEnvironment.get({ TableName: TABLE, Key: { pk: 'a' } })).rejects.toMatchObject({ $metadata: { attempts: 2 } });
    expect(server.requests).toHaveLength(2);
  });

  it('spends its retry quota (500, 14 a retry) and then retries nothing, until successes earn it back', async () => {
    server.answerAlways(internalError);
    const dynamo = lean({ maxAttempts: 2 });

    for (let call = 0; call < 40; call++) await dynamo.get({ TableName: TABLE, Key: { pk: 'a' } }).catch(() => undefined);

    // 35 calls could retry (35 × 14 = 490); the other 5 found 10 tokens left, too few for one.
    expect(server.requests).toHaveLength(35 * 2 + 5);
    expect(dynamo.client.retryQuota.capacity()).toBe(10);
    server.answerAlways({ status: 200, body: {} });
    for (let call = 0; call < 4; call++) await dynamo.get({ TableName: TABLE, Key: { pk: 'a' } });
    expect(dynamo.client.retryQuota.capacity()).toBe(14);
    server.requests.length = 0;
    server.answer(internalError);
    await expect(dynamo.get({ TableName: TABLE, Key: { pk: 'a' } })).resolves.toMatchObject({ $metadata: { attempts: 2 } });
  });

  it('gives a retry’s cost back when it ends in ConditionalCheckFailedException (the write the lost answer hid), and only then', async () => {
    const dynamo = lean();
    // Each write's first answer is lost (500); its retry finds the item the first attempt wrote.
    for (let write = 0; write < 60; write++) {
      server.answer(internalError, conditionFailed);
      await expect(dynamo.put({ TableName: TABLE, Item: { pk: 'a', sk: write }, ConditionExpression: 'attribute_not_exists(pk)' })).rejects.toMatchObject({ name: 'ConditionalCheckFailedException', $metadata: { attempts: 2 } });
    }
    expect(server.requests).toHaveLength(120);
    expect(dynamo.client.retryQuota.capacity()).toBe(500);

    // Another client error after a retry keeps its cost.
    server.answer(internalError, { status: 400, body: dynamoError('ValidationException', 'bad') });
    await expect(dynamo.put({ TableName: TABLE, Item: { pk: 'a', sk: 1 } })).rejects.toMatchObject({ name: 'ValidationException' });
    expect(dynamo.client.retryQuota.capacity()).toBe(486);
  });

  it('tries again when an answer does not come within the request timeout, then fails with TimeoutError', async () => {
    server.answer('hang');
    const dynamo = lean({ requestTimeoutMs: 200 });

    await expect(dynamo.get({ TableName: TABLE, Key: { pk: 'a' } })).resolves.toMatchObject({ $metadata: { attempts: 2 } });

    server.answerAlways('hang');
    const started = Date.now();
    await expect(dynamo.get({ TableName: TABLE, Key: { pk: 'a' } })).rejects.toMatchObject({ name: 'TimeoutError', $metadata: { attempts: 4 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 200 - 20);
  });

  it('retries a connection the server resets', async () => {
    const dynamo = lean({ endpoint: 'http://127.0.0.1:1' });

    // Nothing listens on port 1: every attempt is refused, and each is retried.
    await expect(dynamo.get({ TableName: TABLE, Key: { pk: 'a' } })).rejects.toMatchObject({ $metadata: { attempts: 4 } });
  });

  it('retries an answer whose connection is lost halfway through its body', async () => {
    server.answer('cut', { body: { Item: { pk: { S: 'a' } } } });

    await expect(lean().get({ TableName: TABLE, Key: { pk: 'a' } })).resolves.toMatchObject({ Item: { pk: 'a' }, $metadata: { attempts: 2 } });
    expect(server.requests).toHaveLength(2);
  });

  it('sends request after request over one kept-alive connection without adding listeners to it each time', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const dynamo = lean({ connectTimeoutMs: 1_000 });
      for (let index = 0; index < 25; index += 1) await dynamo.get({ TableName: TABLE, Key: { pk: 'a' } });
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(new Set(server.requests.map((request) => request.remotePort)).size).toBe(1);
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('stops at once, without further attempts, when the caller aborts: during a request and during a backoff', async () => {
    server.answerAlways('hang');
    const dynamo = lean({ requestTimeoutMs: 10_000 });
    const duringRequest = new AbortController();
    const pending = dynamo.get({ TableName: TABLE, Key: { pk: 'a' } }, { abortSignal: duringRequest.signal });
    await waitFor(() => server.requests.length === 1);
    duringRequest.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    server.answerAlways({ status: 400, body: dynamoError('ThrottlingException', 'slow down') });
    server.requests.length = 0;
    const duringBackoff = new AbortController();
    // random 1: a full second's pause after the throttled first attempt.
    const throttled = lean({ random: () => 1 }).get({ TableName: TABLE, Key: { pk: 'a' } }, { abortSignal: duringBackoff.signal });
    await waitFor(() => server.requests.length === 1);
    const aborted = Date.now();
    duringBackoff.abort();
    await expect(throttled).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - aborted).toBeLessThan(500);
    expect(server.requests).toHaveLength(1);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
