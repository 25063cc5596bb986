/**
 * Amazon Bedrock as a model provider (`model.provider: bedrock`, LLM_PROVIDER=bedrock): the model
 * a model id, an inference profile id or an ARN; the region model.region or AWS_REGION; signed
 * with SigV4 by the default credential chain, so nothing is stored (no API key, no secret).
 *
 * The AWS SDK is loaded on the first call, not with this file: a process on another provider (or
 * the library embedded with an in-memory store) never loads the Bedrock client.
 */
import type { ModelSettings, ModelProvider } from '../../config/model-provider.ts';
import type { Logger } from '../../core/logger.ts';
import type { ModelClient } from '../../core/ports.ts';
import { ms } from '../../core/time.ts';

const EXAMPLE_MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

export const bedrockProvider: ModelProvider = {
  name: 'bedrock',
  notConfigured(settings) {
    if (settings.name === '') {
      return `No Bedrock model is named. Set LLM_MODEL (or model.name in agent.yml) to a model id, an inference profile id or an ARN, e.g. LLM_MODEL=${EXAMPLE_MODEL}, and grant access to it in the Bedrock console (Model access).`;
    }
    if (settings.region === undefined) {
      return `No AWS region is set for Bedrock. Set AWS_REGION (or model.region in agent.yml) to the region of ${settings.name}, e.g. AWS_REGION=us-east-1.`;
    }
    return undefined;
  },
  create(settings, context) {
    let model: Promise<ModelClient> | undefined;
    return {
      complete: async (request) => {
        model ??= bedrockModel(settings, context.logger);
        return (await model).complete(request);
      },
    };
  },
  async checkAtStart() {
    // The default chain as the client will use it: environment, profile, SSO, container or instance role.
    const { missingCredentials } = await import('./credentials.ts');
    return missingCredentials();
  },
  describe: (settings) => `${settings.name} on Amazon Bedrock (${settings.endpoint ?? settings.region ?? 'no region'})`,
};

const clientOptions = (settings: ModelSettings) => ({ region: settings.region ?? '', ...(settings.endpoint ? { endpoint: settings.endpoint } : {}) });

async function bedrockModel(settings: ModelSettings, logger: Logger): Promise<ModelClient> {
  const [{ createBedrockClient, endpointName }, { createBedrockModel }] = await Promise.all([import('./client.ts'), import('./model.ts')]);
  const options = clientOptions(settings);
  return createBedrockModel({
    client: createBedrockClient(options),
    model: settings.name,
    endpoint: endpointName(options),
    temperature: settings.temperature,
    ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
    maxRetries: settings.maxRetries,
    attemptTimeoutMs: ms(settings.timeoutSeconds),
    promptCache: settings.promptCache,
    ...(settings.guardrail ? { guardrail: settings.guardrail } : {}),
    ...(settings.reasoningBudgetTokens === undefined ? {} : { reasoningBudgetTokens: settings.reasoningBudgetTokens }),
    logger,
  });
}
