/**
 * Amazon Bedrock as a model provider (`model.provider: bedrock`, LLM_PROVIDER=bedrock): the model
 * a model id, an inference profile id or an ARN; the region model.region or AWS_REGION; signed
 * with SigV4 by the default credential chain, so nothing is stored (no API key, no secret).
 */
import type { ModelProvider } from '../../config/model-provider.ts';
import { errorMessage } from '../../core/errors.ts';
import { ms } from '../../core/time.ts';
import { createBedrockClient, endpointName } from './client.ts';
import { createBedrockModel } from './model.ts';

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
    const clientOptions = { region: settings.region ?? '', ...(settings.endpoint ? { endpoint: settings.endpoint } : {}) };
    return createBedrockModel({
      client: createBedrockClient(clientOptions),
      model: settings.name,
      endpoint: endpointName(clientOptions),
      temperature: settings.temperature,
      ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
      maxRetries: settings.maxRetries,
      attemptTimeoutMs: ms(settings.timeoutSeconds),
      promptCache: settings.promptCache,
      ...(settings.guardrail ? { guardrail: settings.guardrail } : {}),
      ...(settings.reasoningBudgetTokens === undefined ? {} : { reasoningBudgetTokens: settings.reasoningBudgetTokens }),
      logger: context.logger,
    });
  },
  async checkAtStart(settings) {
    // The default chain as the client will use it: environment, profile, SSO, container or instance role.
    const client = createBedrockClient({ region: settings.region ?? '', ...(settings.endpoint ? { endpoint: settings.endpoint } : {}) });
    try {
      await client.config.credentials();
      return undefined;
    } catch (error) {
      return `No AWS credentials for Bedrock (${errorMessage(error)}). Sign in (aws sso login, or AWS_PROFILE), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, then restart.`;
    } finally {
      client.destroy();
    }
  },
  describe: (settings) => `${settings.name} on Amazon Bedrock (${settings.endpoint ?? settings.region ?? 'no region'})`,
};
