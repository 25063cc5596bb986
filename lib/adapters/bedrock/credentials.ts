/**
 * The AWS credentials Bedrock requests are signed with, for both ways of reaching Bedrock: the
 * Converse client (client.ts) and the OpenAI adapter's signed requests to Bedrock's
 * OpenAI-compatible endpoints (lib/adapters/openai/sigv4.ts). Fixed ones in tests; otherwise the
 * SDK's default chain: the function's role when deployed (a Lambda bundle keeps only its
 * environment part, functions/substitutes/environment-credentials.ts), environment, profile or SSO
 * locally. The chain caches what it found and refreshes it before it expires.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { errorMessage } from '../../core/errors.ts';
import type { AwsCredentials, AwsCredentialsProvider } from '../aws/sign-json-post.ts';

export type { AwsCredentials } from '../aws/sign-json-post.ts';

export function awsCredentials(fixed?: AwsCredentials): AwsCredentialsProvider {
  return fixed ? async () => fixed : defaultProvider();
}

/** What to do when the chain finds no credentials, said at start (the local run); undefined when it finds some. */
export async function missingCredentials(credentials: AwsCredentialsProvider = awsCredentials()): Promise<string | undefined> {
  try {
    await credentials();
    return undefined;
  } catch (error) {
    return `No AWS credentials for Bedrock (${errorMessage(error)}). Sign in (aws sso login, or AWS_PROFILE), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, then restart.`;
  }
}
