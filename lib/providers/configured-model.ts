/**
 * The one factory of models: `model.provider` chooses the provider's folder, and the provider says
 * whether it is configured and builds its `ModelClient`. A new provider is a folder and a line here.
 */
// package.json "imports": a Lambda bundle built for another provider gets a stand-in for each
// provider it does not run (functions/substitutes/without-bedrock.ts, without-openai.ts;
// infra/bundling.ts), so each bundle carries only its own provider's code and SDK.
import { bedrockProvider } from '#bedrock-provider';
import { openAIProvider } from '#openai-provider';
import type { Environment } from '../config/environment.ts';
import type { ModelProvider, ModelProviderContext, ModelSettings } from './model-provider.ts';
import type { ModelProviderName } from '../config/schema.ts';
import type { ModelClient } from '../core/ports/model.ts';
import { demoProvider } from './demo.ts';

const PROVIDERS: Readonly<Record<ModelProviderName, ModelProvider>> = { openai: openAIProvider, bedrock: bedrockProvider, demo: demoProvider };

export const modelProvider = (settings: ModelSettings): ModelProvider => PROVIDERS[settings.provider];

/** What the configured provider lacks, said as what to set; undefined when it can answer. */
export const modelNotConfigured = (settings: ModelSettings, environment: Environment): string | undefined =>
  modelProvider(settings).notConfigured(settings, environment);

/** The configured provider's model, or undefined (questions then get 503 with its message). */
export function createConfiguredModel(settings: ModelSettings, context: ModelProviderContext): ModelClient | undefined {
  const provider = modelProvider(settings);
  return provider.notConfigured(settings, context.environment) === undefined ? provider.create(settings, context) : undefined;
}
