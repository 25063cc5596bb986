import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AgentConfig } from '../../config/load.ts';
import { ms } from '../../core/time.ts';

export type DynamoTimeouts = Pick<AgentConfig['conversation'], 'requestTimeoutSeconds' | 'connectTimeoutSeconds'>;

/**
 * The DynamoDB client every entry point builds once: each request bounded by conversation.*
 * timeouts (the SDK's default waits for ever on a request that gets no answer), then retried by
 * the SDK with backoff. `instrument` wraps the raw client (embedding code may trace it, e.g. with X-Ray).
 */
export function createDynamoDocumentClient(
  timeouts: DynamoTimeouts,
  options: { config?: DynamoDBClientConfig; instrument?: (client: DynamoDBClient) => DynamoDBClient } = {},
): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    ...options.config,
    requestHandler: {
      requestTimeout: ms(timeouts.requestTimeoutSeconds),
      connectionTimeout: ms(timeouts.connectTimeoutSeconds),
      // Without it, a request over requestTimeout only logs a warning and goes on waiting.
      throwOnRequestTimeout: true,
    },
  });
  return DynamoDBDocumentClient.from(options.instrument ? options.instrument(client) : client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}
