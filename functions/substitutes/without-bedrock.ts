/**
 * Stands in for lib/providers/bedrock.ts (`#bedrock-provider`) in the Lambda bundles
 * (infra/bundling.ts, functionSubstitutes): the stack's functions call an OpenAI-compatible
 * endpoint, and the Bedrock Runtime client (about 100 KB, and the event-stream codec) would be dead
 * weight on every cold start. A function configured for Bedrock anyway says so instead of failing
 * obscurely.
 */
import type { ModelProvider } from '../../lib/providers/model-provider.ts';

const NOT_BUNDLED = 'This function was bundled without the Bedrock provider (model.provider: bedrock): deploy a stack built for Bedrock, or use an OpenAI-compatible endpoint.';

export const bedrockProvider: ModelProvider = {
  name: 'bedrock',
  notConfigured: () => NOT_BUNDLED,
  create: () => {
    throw new Error(NOT_BUNDLED);
  },
  describe: () => 'Amazon Bedrock (not in this bundle)',
};
