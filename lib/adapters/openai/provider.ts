/**
 * An OpenAI-compatible Chat Completions endpoint as a model provider (`model.provider: openai`, the
 * default): OpenAI, Azure, vLLM, Ollama, LiteLLM and the rest, with an API key when it needs one.
 */
import type { ModelProvider } from '../../config/model-provider.ts';
import { MODEL_NOT_CONFIGURED } from '../../core/errors.ts';
import { ms } from '../../core/time.ts';
import { createOpenAIClient } from './client.ts';
import { createOpenAIModel } from './model.ts';

export const openAIProvider: ModelProvider = {
  name: 'openai',
  // Neither a key nor an endpoint of its own (lib/config/load.ts decides `configured` from both).
  notConfigured: (settings) => (settings.configured ? undefined : MODEL_NOT_CONFIGURED),
  create(settings, context) {
    const client = createOpenAIClient({
      baseURL: settings.baseURL,
      apiKey: settings.apiKey,
      maxRetries: settings.maxRetries,
      timeoutMs: ms(settings.timeoutSeconds),
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
  describe: (settings) => `${settings.name} at ${settings.baseURL}`,
};
