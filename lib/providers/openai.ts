/**
 * An OpenAI-compatible Chat Completions endpoint as a model provider (`model.provider: openai`, the
 * default): OpenAI, Azure, vLLM, Ollama, LiteLLM and the rest, with an API key when it needs one;
 * or Bedrock's OpenAI-compatible endpoints with `model.auth: sigv4`, each request signed with the
 * default AWS credential chain instead of a key (sigv4.ts).
 */
import type { ModelProvider, ModelSettings } from './model-provider.ts';
import { OPENAI_DEFAULT_BASE_URL } from '../config/load.ts';
import { MODEL_NOT_CONFIGURED } from '../core/errors.ts';
import { ms } from '../core/time.ts';
import { BEDROCK_BASE_URLS, signingServiceFor } from '../adapters/openai/bedrock-endpoints.ts';
import { createOpenAIClient } from '../adapters/openai/client.ts';
import { createOpenAIModel } from '../adapters/openai/model.ts';
import type { RequestSigner } from '../adapters/openai/sigv4.ts';

const signed = (settings: ModelSettings) => settings.auth === 'sigv4';

/**
 * The signer, with the AWS SDK's signing code and credential chain loaded on the first request:
 * a process that sends a key (or embeds the library) never loads them.
 */
function signerOnFirstUse(baseURL: string, region: string): RequestSigner {
  let signer: Promise<RequestSigner> | undefined;
  return async (request) => {
    signer ??= import('../adapters/openai/sigv4.ts').then(({ createSigV4Signer }) => createSigV4Signer({ baseURL, region }));
    return (await signer)(request);
  };
}

export const openAIProvider: ModelProvider = {
  name: 'openai',
  notConfigured(settings) {
    if (!signed(settings)) return settings.configured ? undefined : MODEL_NOT_CONFIGURED;
    // Signed requests need no key, but an endpoint that takes them, and the region they are signed for.
    if (settings.baseURL.replace(/\/+$/, '') === OPENAI_DEFAULT_BASE_URL) {
      return `model.auth is sigv4 but the endpoint is OpenAI's, which takes no AWS signature. Set OPENAI_BASE_URL (or model.baseURL in agent.yml) to a Bedrock OpenAI-compatible endpoint: ${BEDROCK_BASE_URLS}.`;
    }
    if (settings.region === undefined) {
      return `No AWS region to sign for (model.auth: sigv4). Set AWS_REGION (or model.region in agent.yml) to the region of ${settings.baseURL}, e.g. AWS_REGION=us-east-1.`;
    }
    return undefined;
  },
  create(settings, context) {
    const client = createOpenAIClient({
      baseURL: settings.baseURL,
      apiKey: settings.apiKey,
      maxRetries: settings.maxRetries,
      timeoutMs: ms(settings.timeoutSeconds),
      ...(signed(settings) && settings.region ? { signer: signerOnFirstUse(settings.baseURL, settings.region) } : {}),
    });
    return createOpenAIModel({
      client,
      model: settings.name,
      temperature: settings.temperature,
      ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
      textToolCalls: settings.textToolCalls,
      logger: context.logger,
    });
  },
  // Only signed requests need something found at start: credentials in the default chain.
  checkAtStart: async (settings) => (signed(settings) ? (await import('../adapters/bedrock/credentials.ts')).missingCredentials() : undefined),
  describe: (settings) =>
    signed(settings)
      ? `${settings.name} at ${settings.baseURL} (signed with SigV4 for ${signingServiceFor(settings.baseURL)} in ${settings.region ?? 'no region'})`
      : `${settings.name} at ${settings.baseURL}`,
};
