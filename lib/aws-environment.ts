/**
 * What the lean AWS clients (lib/adapters/aws/json-client.ts) read from the environment, as the
 * AWS SDK would: the region, the number of attempts, and the keys Lambda gives a function, else the
 * SDK's default chain. Each client adds its own endpoint (lib/lean-dynamo.ts, lib/lean-secrets.ts).
 */
import type { AwsCredentials, AwsCredentialsProvider } from './adapters/aws/json-client.ts';
import { ENV, type Environment } from './config/environment.ts';
import { ConfigError } from './core/errors.ts';

/** A variable's value, trimmed; undefined when unset or blank. */
export const environmentText = (environment: Environment, name: string): string | undefined => environment[name]?.trim() || undefined;

/** AWS_REGION, else AWS_DEFAULT_REGION. */
export const awsRegionFrom = (environment: Environment): string | undefined =>
  environmentText(environment, ENV.awsRegion) ?? environmentText(environment, ENV.awsDefaultRegion);

/** AWS_MAX_ATTEMPTS, when set: a whole number, 1 or more (anything else stops the start). */
export function awsMaxAttemptsFrom(environment: Environment): { maxAttempts?: number } {
  const text = environmentText(environment, ENV.awsMaxAttempts);
  if (text === undefined) return {};
  const maxAttempts = Number.parseInt(text, 10);
  if (!(maxAttempts >= 1)) throw new ConfigError(`${ENV.awsMaxAttempts} must be a whole number of attempts, 1 or more, not "${text}"`);
  return { maxAttempts };
}

/** The environment's keys when it has them (read each time: nothing is cached that could go stale), else the default chain. */
export function awsCredentialsFrom(environment: Environment): AwsCredentialsProvider {
  let chain: Promise<AwsCredentialsProvider> | undefined;
  return async (): Promise<AwsCredentials> => {
    const accessKeyId = environment[ENV.awsAccessKeyId]?.trim();
    const secretAccessKey = environment[ENV.awsSecretAccessKey]?.trim();
    const sessionToken = environment[ENV.awsSessionToken]?.trim();
    if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
    // The chain caches what it found and asks again before it expires.
    chain ??= import('@aws-sdk/credential-provider-node').then((loaded) => loaded.defaultProvider());
    return (await chain)();
  };
}
