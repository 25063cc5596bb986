/**
 * Stands in for lib/providers/openai.ts (`#openai-provider`) in the Lambda bundles of a
 * stack on another provider (infra/bundling.ts, functionSubstitutes): a function deployed for
 * Bedrock signs its model calls with its role and never calls an OpenAI-compatible endpoint, so
 * the Chat Completions adapter and the `openai` package's code for it (about 30 KB) would be dead
 * weight on every cold start. A function configured for it anyway says so instead of failing
 * obscurely.
 */
import type { ModelProvider } from '../../lib/providers/model-provider.ts';

const NOT_BUNDLED = 'This function was bundled without the OpenAI-compatible provider (model.provider: openai): deploy a stack built for it (the context key modelProvider, or model.provider in agent.yml).';

export const openAIProvider: ModelProvider = {
  name: 'openai',
  notConfigured: () => NOT_BUNDLED,
  create: () => {
    throw new Error(NOT_BUNDLED);
  },
  describe: () => 'an OpenAI-compatible endpoint (not in this bundle)',
};
