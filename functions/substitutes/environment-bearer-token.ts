/**
 * Stands in for `@aws-sdk/token-providers` in the Lambda bundles of a stack on Bedrock
 * (infra/bundling.ts, functionSubstitutes). The Bedrock Runtime client offers two ways to sign:
 * SigV4 with AWS credentials, first, and a bearer token (a Bedrock API key), which it picks only
 * when AWS_BEARER_TOKEN_BEDROCK is set or AWS_AUTH_SCHEME_PREFERENCE puts `httpBearerAuth` first
 * (@aws-sdk/core, NODE_AUTH_SCHEME_PREFERENCE_OPTIONS). The stack sets neither: its functions sign
 * with their role. The token then comes from that environment variable (`fromEnvSigningName`,
 * kept here as the SDK writes it) or else from an SSO session in a profile (`nodeProvider`, with
 * the SSO OIDC client, about 20 KB), which a Lambda function has no profile for. The second is
 * left out; code run from the sources keeps the package whole.
 */
import { setTokenFeature } from '@aws-sdk/core/client';
import { getBearerTokenEnvKey } from '@aws-sdk/core/httpAuthSchemes';
import { TokenProviderError } from '@smithy/core/config';
import type { Logger } from '@smithy/types';

interface TokenInit {
  logger?: Logger;
  signingName?: string;
}

/** The token in AWS_BEARER_TOKEN_<SIGNING NAME>, as @aws-sdk/token-providers reads it. */
export const fromEnvSigningName = ({ logger, signingName }: TokenInit = {}) => async () => {
  if (!signingName) throw new TokenProviderError("Please pass 'signingName' to compute environment variable key", { logger });
  const key = getBearerTokenEnvKey(signingName);
  if (!(key in process.env)) throw new TokenProviderError(`Token not present in '${key}' environment variable`, { logger });
  const token = { token: process.env[key]! };
  setTokenFeature(token, 'BEARER_SERVICE_ENV_VARS', '3');
  return token;
};

/** No SSO session in a Lambda function: say what does work there. */
export const nodeProvider = (_init: unknown = {}) => async (): Promise<never> => {
  throw new TokenProviderError('This function was bundled without SSO bearer tokens: it signs with its role (SigV4), or with a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK.', false);
};
