/**
 * The names of agent.yml's `model` that code reads without the schema: lib/config/load.ts settles
 * the provider and the model name from them, and a Lambda function loads its pre-validated
 * agent.json without evaluating a zod schema (lib/config/prevalidated.ts). No zod here.
 */

/**
 * The model name (model.name or LLM_MODEL) that selects the offline stand-in, lib/demo/model.ts:
 * a few rules instead of a language model, and the default of `npm start` when no model is
 * configured (never of a deployed stack).
 */
export const DEMO_MODEL_NAME = 'demo';

/** Who serves the model: an OpenAI-compatible endpoint, Amazon Bedrock (Converse), or the offline stand-in. */
export const MODEL_PROVIDERS = ['openai', 'bedrock', 'demo'] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

/** The model each provider uses when none is named; Bedrock has none: its models are the account's choice. */
export const DEFAULT_MODEL_NAMES: Readonly<Record<ModelProviderName, string | undefined>> = { openai: 'gpt-4o-mini', bedrock: undefined, demo: 'demo' };
