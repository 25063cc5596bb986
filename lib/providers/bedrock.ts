/**
 * Amazon Bedrock as a model provider (`model.provider: bedrock`, LLM_PROVIDER=bedrock): the model
 * a model id, an inference profile id or an ARN; the region model.region or AWS_REGION; signed
 * with SigV4 by the default credential chain, so nothing is stored (no API key, no secret).
 *
 * The AWS SDK is loaded on the first call, not with this file: a process on another provider (or
 * the library embedded with an in-memory store) never loads the Bedrock client.
 */
import type { ModelSettings, ModelProvider } from './model-provider.ts';
import type { Logger } from '../core/logger.ts';
import type { ModelClient } from '../core/ports/model.ts';
import { ms } from '../core/time.ts';

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
  async checkAtStart(settings) {
    // The default chain as the client will use it: environment, profile, SSO, container or instance role.
    const { missingCredentials } = await import('../adapters/bedrock/credentials.ts');
    return (await missingCredentials()) ?? (await missingModelAccess(settings));
  },
  describe: (settings) => `${settings.name} on Amazon Bedrock (${settings.endpoint ?? settings.region ?? 'no region'})`,
};

/** Model access is granted per account, region and model: only a call shows whether this one has it. */
const ACCESS_PROBE_TIMEOUT_MS = 15_000;

/**
 * One Converse call of a single output token ("Reply with OK."), made by npm start before it listens:
 * a model the account may not use, or an id Bedrock does not know, stops the run with Bedrock's
 * reason and what to do. A model that is busy or slow is no reason not to start: the first turn
 * says what it says.
 */
async function missingModelAccess(settings: ModelSettings): Promise<string | undefined> {
  const model = await bedrockModel({ ...settings, maxRetries: 0 }, undefined);
  try {
    await model.complete({ messages: [{ role: 'user', content: 'Reply with OK.' }], tools: [], maxTokens: 1, timeoutMs: ACCESS_PROBE_TIMEOUT_MS });
    return undefined;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'model_auth_failed' && code !== 'model_rejected_request') return undefined;
    return `Bedrock does not let this identity use ${settings.name} in ${settings.region ?? 'this region'}: ${(error as Error).message}`;
  }
}

const clientOptions = (settings: ModelSettings) => ({ region: settings.region ?? '', ...(settings.endpoint ? { endpoint: settings.endpoint } : {}) });

async function bedrockModel(settings: ModelSettings, logger: Logger | undefined): Promise<ModelClient> {
  const [{ createBedrockClient, endpointName }, { createBedrockModel }] = await Promise.all([import('../adapters/bedrock/client.ts'), import('../adapters/bedrock/model.ts')]);
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
    ...(logger ? { logger } : {}),
  });
}
