import { ENV, type Environment } from '../config/environment.ts';

/** Where, in which region and as whom the local run and the tests reach DynamoDB. */
export interface DynamoConnection {
  endpoint: string;
  /** Unset only for real AWS without AWS_REGION: the SDK's usual configuration decides. */
  region?: string;
  /** Unset only for real AWS without keys in the environment: the SDK's credential chain decides. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/**
 * An emulator (dynalite, DynamoDB Local, LocalStack) takes any region and any keys, but the SDK
 * will not send a request without both. DynamoDB Local started without -sharedDb keeps one set of
 * tables per key and region, so these stay the same from run to run.
 */
const EMULATOR_REGION = 'local';
const EMULATOR_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * The region and keys of the environment (AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN) when set; otherwise, for an emulator, the placeholders above, and for real
 * AWS nothing, so that profiles, SSO and instance roles still work.
 */
export function dynamoConnection(endpoint: string, environment: Environment): DynamoConnection {
  const emulator = !isAwsEndpoint(endpoint);
  const text = (name: string) => environment[name]?.trim() || undefined;
  const region = text(ENV.awsRegion) ?? (emulator ? EMULATOR_REGION : undefined);
  const accessKeyId = text(ENV.awsAccessKeyId);
  const secretAccessKey = text(ENV.awsSecretAccessKey);
  const sessionToken = text(ENV.awsSessionToken);
  const credentials =
    accessKeyId && secretAccessKey
      ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }
      : emulator
        ? { ...EMULATOR_CREDENTIALS }
        : undefined;
  return { endpoint, ...(region ? { region } : {}), ...(credentials ? { credentials } : {}) };
}

/** DynamoDB's own endpoints (regional, FIPS, VPC endpoints) are all under amazonaws.com. */
export function isAwsEndpoint(endpoint: string): boolean {
  return /(^|\.)amazonaws\.com(\.cn)?$/i.test(new URL(endpoint).hostname);
}

/**
 * The environment the SDK reads when a client is built with `new DynamoDBClient({})`, as the
 * Lambda handlers build theirs: the endpoint, and the region and keys when there are any.
 */
export function connectionEnvironment(connection: DynamoConnection): Record<string, string> {
  const variables: Record<string, string> = { [ENV.awsDynamodbEndpoint]: connection.endpoint };
  if (connection.region) variables[ENV.awsRegion] = connection.region;
  if (connection.credentials) {
    variables[ENV.awsAccessKeyId] = connection.credentials.accessKeyId;
    variables[ENV.awsSecretAccessKey] = connection.credentials.secretAccessKey;
    if (connection.credentials.sessionToken) variables[ENV.awsSessionToken] = connection.credentials.sessionToken;
  }
  return variables;
}
