/**
 * The Bedrock Runtime client, built once by a composition root and handed to the model adapter.
 * Signed with SigV4 from the SDK's default credential chain (credentials.ts: the function's role
 * when deployed; environment, profile or SSO locally). The SDK's own retries are off: the adapter retries, and
 * only before a streamed reply has shown anything (attempts.ts).
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { awsCredentials, type AwsCredentials } from './credentials.ts';

interface BedrockClientOptions {
  /** AWS_REGION, or model.region in agent.yml. */
  region: string;
  /** BEDROCK_ENDPOINT: another endpoint (a VPC endpoint, a local stand-in), as DYNAMODB_ENDPOINT is for the store. */
  endpoint?: string;
  /** Fixed credentials (tests); otherwise the default chain. */
  credentials?: AwsCredentials;
}

export function createBedrockClient(options: BedrockClientOptions): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region: options.region,
    maxAttempts: 1,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    credentials: awsCredentials(options.credentials),
  });
}

/** Where a client sends its requests, as messages name it. */
export const endpointName = (options: BedrockClientOptions): string => options.endpoint ?? `bedrock-runtime.${options.region}.amazonaws.com`;
