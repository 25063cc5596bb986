/**
 * What the lean AWS clients (lib/adapters/aws/json-client.ts) read from the environment, as the
 * AWS SDK would: the keys Lambda gives a function, else the SDK's default chain.
 */
import type { AwsCredentials, AwsCredentialsProvider } from './adapters/aws/json-client.ts';
import { ENV, type Environment } from './config/environment.ts';

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
