/**
 * The DynamoDB client of the Lambda functions and `npm start` (lib/adapters/dynamodb/lean-documents.ts),
 * configured from the environment as the AWS SDK would configure itself:
 *
 *   endpoint     AWS_ENDPOINT_URL_DYNAMODB (npm start sets it), else AWS_ENDPOINT_URL, else the
 *                region's (AWS_USE_FIPS_ENDPOINT=true: FIPS; AWS_USE_DUALSTACK_ENDPOINT=true: IPv6 too)
 *   region       AWS_REGION, else AWS_DEFAULT_REGION, else the one in the endpoint's host name
 *   credentials  AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN (what Lambda gives a
 *                function), read at each request; without them, the SDK's default chain (profiles,
 *                SSO, instance roles), loaded at the first request and refreshed before expiry
 *   attempts     AWS_MAX_ATTEMPTS, else the SDK's 4 for DynamoDB
 */
import { regionOfEndpoint } from './adapters/aws/endpoint.ts';
import type { DynamoDocuments } from './adapters/dynamodb/documents.ts';
import { createLeanDynamoDocuments } from './adapters/dynamodb/lean-documents.ts';
import { awsCredentialsFrom, awsMaxAttemptsFrom, awsRegionFrom, environmentText } from './aws-environment.ts';
import { ENV, type Environment } from './config/environment.ts';
import { ConfigError } from './core/errors.ts';
import { ms } from './core/time.ts';

interface DynamoTimeouts {
  requestTimeoutSeconds: number;
  connectTimeoutSeconds: number;
}

export function leanDynamoFromEnvironment(timeouts: DynamoTimeouts, environment: Environment = process.env): DynamoDocuments {
  const text = (name: string) => environmentText(environment, name);
  const endpoint = text(ENV.awsDynamodbEndpoint) ?? text(ENV.awsEndpointUrl);
  const region = awsRegionFrom(environment) ?? (endpoint ? regionOfEndpoint(endpoint, 'dynamodb') : undefined);
  if (!region) throw new ConfigError(`DynamoDB needs a region: set ${ENV.awsRegion} (or an endpoint in ${ENV.awsDynamodbEndpoint} that names one)`);
  return createLeanDynamoDocuments({
    region,
    ...(endpoint ? { endpoint } : {}),
    useFipsEndpoint: text(ENV.awsUseFipsEndpoint) === 'true',
    useDualstackEndpoint: text(ENV.awsUseDualstackEndpoint) === 'true',
    credentials: awsCredentialsFrom(environment),
    requestTimeoutMs: ms(timeouts.requestTimeoutSeconds),
    connectTimeoutMs: ms(timeouts.connectTimeoutSeconds),
    ...awsMaxAttemptsFrom(environment),
  });
}
