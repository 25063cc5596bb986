import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ms } from '../../core/time.ts';
import { isConditionalCheckFailed } from './errors.ts';

/** How long a request may take, and connecting (agent.yml's conversation.* timeouts fit it). */
interface DynamoTimeouts {
  requestTimeoutSeconds: number;
  connectTimeoutSeconds: number;
}

/**
 * An SDK document client as the service would want it, for code that embeds the agent with the
 * SDK (the functions use lean-documents.ts): each request bounded by conversation.* timeouts (the
 * SDK's default waits for ever on a request that gets no answer), then retried by the SDK with
 * backoff. `instrument` wraps the raw client (embedding code may trace it, e.g. with X-Ray).
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
  refundRetriesThatFoundTheirWrite(client);
  return DynamoDBDocumentClient.from(options.instrument ? options.instrument(client) : client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** The part of the SDK's retry strategy (RetryStrategyV2) the refund needs. */
interface RetryStrategy {
  acquireInitialRetryToken(scope: string): Promise<RetryToken>;
  refreshRetryTokenForRetry(token: RetryToken, errorInfo: { error?: unknown; errorType: string }): Promise<RetryToken>;
  recordSuccess(token: RetryToken): void;
}
interface RetryToken {
  getRetryCount(): number;
}

/**
 * The SDK retries a write whose answer was lost (DynamoDB may answer 500 after a write that
 * happened), paying for the retry from a quota shared by the client (500, 14 a retry, 1 back per
 * plain success). The retry of a conditional write then fails its condition on the item the first
 * attempt wrote; the store's read-back finds its own write there (store.ts), but to the SDK the
 * retry failed, so its cost is never given back. Enough lost answers, and the quota is spent: the
 * SDK retries nothing any more, not even throttling, for every turn of the container.
 *
 * So a retry that ends in ConditionalCheckFailedException gives its cost back, as a retry that
 * succeeds does: it reached DynamoDB and got a definite answer, which is all the quota guards.
 * The strategy is the client's own default one (its mode and attempts as configured), wrapped.
 */
function refundRetriesThatFoundTheirWrite(client: DynamoDBClient): void {
  const config = client.config as unknown as { retryStrategy: () => Promise<RetryStrategy> };
  const resolveDefault = config.retryStrategy;
  let wrapped: Promise<RetryStrategy> | undefined;
  config.retryStrategy = () =>
    (wrapped ??= resolveDefault().then((strategy): RetryStrategy => {
      if (typeof strategy.refreshRetryTokenForRetry !== 'function') return strategy;
      return {
        acquireInitialRetryToken: (scope) => strategy.acquireInitialRetryToken(scope),
        refreshRetryTokenForRetry: (token, errorInfo) => {
          if (token.getRetryCount() > 0 && isConditionalCheckFailed(errorInfo.error)) strategy.recordSuccess(token);
          return strategy.refreshRetryTokenForRetry(token, errorInfo);
        },
        recordSuccess: (token) => strategy.recordSuccess(token),
      };
    }));
}
