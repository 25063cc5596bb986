/**
 * Bedrock's OpenAI-compatible Chat Completions endpoints, as `model.auth: sigv4` signs for them:
 * bedrock-runtime's `/openai/v1` for the service `bedrock`, and the Mantle endpoint
 * (`bedrock-mantle.<region>.api.aws`) for `bedrock-mantle`, as the openai SDK's own Bedrock provider
 * signs them. Kept apart from the signer (sigv4.ts), which loads the AWS SDK's signing code.
 */

/** The base URLs to set, as messages and docs/models.md give them. */
export const BEDROCK_BASE_URLS = 'https://bedrock-runtime.<region>.amazonaws.com/openai/v1 (bedrock-runtime) or https://bedrock-mantle.<region>.api.aws/v1 (Mantle)';

/** `bedrock-mantle` for a host of the Mantle endpoint (a VPC endpoint's too), else `bedrock`. */
export function signingServiceFor(baseURL: string): 'bedrock' | 'bedrock-mantle' {
  const labels = new URL(baseURL).hostname.toLowerCase().split('.');
  return labels.includes('bedrock-mantle') ? 'bedrock-mantle' : 'bedrock';
}
