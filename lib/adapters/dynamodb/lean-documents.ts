import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { createAwsJsonClient, type AwsCredentialsProvider, type AwsJsonClient } from '../aws/json-client.ts';
import { regionalEndpoint } from '../aws/endpoint.ts';
import type { DynamoDocuments } from './documents.ts';
import { isConditionalCheckFailed } from './errors.ts';
import { fromWire, mapValues, toWire } from './wire-values.ts';

export interface LeanDynamoOptions {
  region: string;
  /** Another endpoint (an emulator, a VPC endpoint); default: the region's DynamoDB endpoint. */
  endpoint?: string;
  useFipsEndpoint?: boolean;
  useDualstackEndpoint?: boolean;
  credentials: AwsCredentialsProvider;
  /** conversation.requestTimeoutSeconds: each attempt's answer must come within it. */
  requestTimeoutMs: number;
  /** conversation.connectTimeoutSeconds: a new connection must be made within it. */
  connectTimeoutMs?: number;
  /** Attempts in all; the SDK's default for DynamoDB, 4, without it. */
  maxAttempts?: number;
  /** Injectable for tests: requests then go through it instead of node:http(s). */
  fetch?: typeof fetch;
  random?: () => number;
}

/** The SDK's defaults for DynamoDB (its client's retry configuration). */
const DYNAMODB_MAX_ATTEMPTS = 4;
const DYNAMODB_BASE_DELAY_MS = 25;

/** As lib/adapters/dynamodb/client.ts configures the SDK's document client. */
const MARSHALL_OPTIONS = { removeUndefinedValues: true };

type NativeMap = Record<string, NativeAttributeValue>;
type WireMap = Record<string, Record<string, unknown>>;

const toWireMap = (map: NativeMap | undefined) => (map === undefined ? undefined : mapValues(marshall(map, MARSHALL_OPTIONS) as unknown as WireMap, toWire));
const fromWireMap = (map: unknown) => (map === undefined || map === null ? undefined : unmarshall(mapValues(map as WireMap, fromWire) as unknown as Record<string, AttributeValue>));

/**
 * DynamoDB's six operations over its JSON protocol (lib/adapters/aws/json-client.ts), marshalled
 * with the SDK's own @aws-sdk/util-dynamodb as its document client marshals them.
 *
 * A retry that ends in ConditionalCheckFailedException gives its cost back to the retry quota, as
 * a retry that succeeds does. DynamoDB may answer 500 after a write that happened; the retry of a
 * conditional write then fails its condition on the item the first attempt wrote, and the store's
 * read-back finds its own write there (store.ts). Without the refund, enough lost answers would
 * spend the quota, and then nothing would be retried any more, not even throttling, for every
 * turn of the container. (client.ts adds the same refund to the SDK's client.)
 */
export function createLeanDynamoDocuments(options: LeanDynamoOptions): DynamoDocuments & { client: AwsJsonClient } {
  const client = createAwsJsonClient({
    service: 'dynamodb',
    targetPrefix: 'DynamoDB_20120810',
    jsonVersion: '1.0',
    endpoint: options.endpoint ?? regionalEndpoint('dynamodb', options.region, { fips: options.useFipsEndpoint, dualstack: options.useDualstackEndpoint }),
    region: options.region,
    credentials: options.credentials,
    requestTimeoutMs: options.requestTimeoutMs,
    ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
    maxAttempts: options.maxAttempts ?? DYNAMODB_MAX_ATTEMPTS,
    baseDelayMs: DYNAMODB_BASE_DELAY_MS,
    refundsRetry: isConditionalCheckFailed,
    // ReturnValuesOnConditionCheckFailure: the item as it is, as a document.
    errorFields: (fields) => (fields.Item ? { Item: fromWireMap(fields.Item) } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.random ? { random: options.random } : {}),
  });

  /** The input with its attribute maps marshalled; those left undefined are left out. */
  function wireInput(input: object & { Key?: NativeMap; Item?: NativeMap; ExpressionAttributeValues?: NativeMap; ExclusiveStartKey?: NativeMap }) {
    const wire: Record<string, unknown> = { ...input };
    for (const name of ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const) {
      if (input[name] === undefined) delete wire[name];
      else wire[name] = toWireMap(input[name]);
    }
    return wire;
  }

  /** The output with its attribute maps as documents. */
  function documentOutput<Output>(output: Record<string, unknown>): Output {
    for (const name of ['Item', 'Attributes', 'LastEvaluatedKey']) {
      if (output[name] !== undefined) output[name] = fromWireMap(output[name]);
    }
    if (Array.isArray(output.Items)) output.Items = output.Items.map(fromWireMap);
    if (output.UnprocessedItems) output.UnprocessedItems = requestItems(output.UnprocessedItems as Record<string, WriteRequest[]>, fromWireMap);
    return output as Output;
  }

  return {
    client,
    get: async (input, callOptions) => documentOutput(await client.call('GetItem', wireInput(input), callOptions)),
    put: async (input, callOptions) => documentOutput(await client.call('PutItem', wireInput(input), callOptions)),
    update: async (input, callOptions) => documentOutput(await client.call('UpdateItem', wireInput(input), callOptions)),
    delete: async (input, callOptions) => documentOutput(await client.call('DeleteItem', wireInput(input), callOptions)),
    query: async (input, callOptions) => documentOutput(await client.call('Query', wireInput(input), callOptions)),
    batchWrite: async (input, callOptions) =>
      documentOutput(await client.call('BatchWriteItem', { ...input, RequestItems: requestItems(input.RequestItems as Record<string, WriteRequest[]>, toWireMap) }, callOptions)),
  };
}

interface WriteRequest {
  PutRequest?: { Item?: unknown };
  DeleteRequest?: { Key?: unknown };
}

/** BatchWriteItem's RequestItems (and UnprocessedItems): each put's Item and delete's Key converted. */
function requestItems(items: Record<string, WriteRequest[]> | undefined, convert: (map: never) => unknown): Record<string, WriteRequest[]> {
  const converted: Record<string, WriteRequest[]> = {};
  for (const [table, requests] of Object.entries(items ?? {})) {
    converted[table] = requests.map((request) => ({
      ...(request.PutRequest ? { PutRequest: { ...request.PutRequest, Item: convert(request.PutRequest.Item as never) } } : {}),
      ...(request.DeleteRequest ? { DeleteRequest: { ...request.DeleteRequest, Key: convert(request.DeleteRequest.Key as never) } } : {}),
    }));
  }
  return converted;
}
