import { leanSecretReader, type ReadSecret } from './adapters/aws/secret-reader.ts';
import { awsCredentialsFrom, awsMaxAttemptsFrom, awsRegionFrom, environmentText } from './aws-environment.ts';
import { ENV, type Environment } from './config/environment.ts';
import { ConfigError } from './core/errors.ts';

/** What a cold start waits for a secret at most, per attempt, and for a connection. */
const REQUEST_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * The Secrets Manager reads of the cold start (functions/runtime.ts) without the AWS SDK's client:
 * the region of AWS_REGION (or AWS_DEFAULT_REGION), its endpoint or AWS_ENDPOINT_URL_SECRETS_MANAGER
 * (or AWS_ENDPOINT_URL), the credentials as lib/aws-environment.ts finds them, and AWS_MAX_ATTEMPTS
 * (else the SDK's 3), as the SDK's client reads it. Built on the first read: a function without
 * secrets needs no region.
 */
export function leanSecretsFromEnvironment(environment: Environment = process.env): ReadSecret {
  let reader: ReadSecret | undefined;
  return async (secretId) => {
    if (!reader) {
      const region = awsRegionFrom(environment);
      if (!region) throw new ConfigError(`reading secret ${secretId} needs a region: set ${ENV.awsRegion}`);
      const endpoint = environmentText(environment, ENV.awsSecretsManagerEndpoint) ?? environmentText(environment, ENV.awsEndpointUrl);
      reader = leanSecretReader({
        region,
        ...(endpoint ? { endpoint } : {}),
        credentials: awsCredentialsFrom(environment),
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        ...awsMaxAttemptsFrom(environment),
      });
    }
    return reader(secretId);
  };
}
