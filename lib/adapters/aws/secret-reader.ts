import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createAwsJsonClient, type AwsCredentialsProvider } from './json-client.ts';
import { regionalEndpoint } from './endpoint.ts';

/** A Secrets Manager secret's text (SecretString); undefined when it holds none. Errors are the SDK's, or shaped as its. */
export type ReadSecret = (secretId: string) => Promise<string | undefined>;

/** The SDK's defaults for Secrets Manager. */
const SECRETS_MANAGER_MAX_ATTEMPTS = 3;
const SECRETS_MANAGER_BASE_DELAY_MS = 50;

/**
 * GetSecretValue over the AWS JSON protocol (json-client.ts), without the SDK's client: the cold
 * start reads its secrets with it (functions/runtime.ts), so no AWS SDK client is loaded there.
 */
export function leanSecretReader(options: { region: string; endpoint?: string; credentials: AwsCredentialsProvider; requestTimeoutMs: number; connectTimeoutMs?: number; maxAttempts?: number }): ReadSecret {
  const client = createAwsJsonClient({
    service: 'secretsmanager',
    targetPrefix: 'secretsmanager',
    jsonVersion: '1.1',
    endpoint: options.endpoint ?? regionalEndpoint('secretsmanager', options.region),
    region: options.region,
    credentials: options.credentials,
    requestTimeoutMs: options.requestTimeoutMs,
    ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
    maxAttempts: options.maxAttempts ?? SECRETS_MANAGER_MAX_ATTEMPTS,
    baseDelayMs: SECRETS_MANAGER_BASE_DELAY_MS,
  });
  return async (secretId) => {
    const output = await client.call('GetSecretValue', { SecretId: secretId });
    return typeof output.SecretString === 'string' ? output.SecretString : undefined;
  };
}

/** The same read through an SDK client (tests, and code that has one), loaded when first read. */
export function secretReaderFromClient(client: () => SecretsManagerClient): ReadSecret {
  return async (secretId) => {
    const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    return (await client().send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  };
}
