/** agent.yml `model`: who serves the model and how it is called. */

import * as z from 'zod';
import { MODEL_PROVIDERS } from './model-names.ts';
import { boolean, numeric, positiveInt, positiveSeconds } from './shared.ts';

export { DEFAULT_MODEL_NAMES, DEMO_MODEL_NAME, MODEL_PROVIDERS, type ModelProviderName } from './model-names.ts';

export const modelSchema = z.strictObject({
  /** LLM_PROVIDER overrides. */
  provider: z.enum(MODEL_PROVIDERS).default('openai'),
  /**
   * `demo` (DEMO_MODEL_NAME) selects the offline stand-in instead of an endpoint. Default per
   * provider (DEFAULT_MODEL_NAMES); for Bedrock a model id, an inference profile id or an ARN.
   */
  name: z.string().min(1).optional(),
  /** bedrock, and openai with auth sigv4: the region of the Bedrock endpoint; default AWS_REGION. */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as us-east-1').optional(),
  /** bedrock: cachePoint blocks after the system prompt and the tools, for models with prompt caching. */
  promptCache: boolean().default(false),
  /** bedrock: a guardrail applied to every model call (guardrailConfig). */
  guardrail: z
    .strictObject({
      id: z.string().min(1),
      version: z.preprocess((value) => (typeof value === 'number' ? String(value) : value), z.string().min(1)),
      trace: z.enum(['enabled', 'disabled', 'enabled_full']).default('disabled'),
    })
    .optional(),
  /** bedrock: extended thinking (Anthropic models): the tokens the model may reason with per call. */
  reasoningBudgetTokens: numeric(z.number().int().min(1024)).optional(),
  /** Defaults to OpenAI's endpoint (lib/config/load.ts); OPENAI_BASE_URL overrides. */
  baseURL: z.url().optional(),
  apiKey: z.string().optional(),
  /**
   * openai: how requests prove who sends them. `key`: the API key as a bearer token. `sigv4`:
   * signed with SigV4 by the default AWS credential chain, for Bedrock's OpenAI-compatible
   * endpoints (baseURL bedrock-runtime's `/openai/v1` or the Mantle endpoint; region as for bedrock).
   */
  auth: z.enum(['key', 'sigv4']).default('key'),
  temperature: numeric(z.number().min(0).max(2)).default(0.7),
  /** Sent as `max_tokens` only when set: some models (OpenAI reasoning models) reject it. */
  maxTokens: positiveInt().optional(),
  /** Per model call, retries included. */
  timeoutSeconds: positiveSeconds().default(60),
  maxRetries: numeric(z.number().int().min(0).max(10)).default(2),
  /**
   * Read tool calls that a server without a tool-call parser wrote into `content` (hermes
   * `<tool_call>`, Qwen3-Coder XML, Llama python tags, bare JSON). Off: such text stays text.
   */
  textToolCalls: boolean().default(false),
  /**
   * The model accepts images: image content of a tool result is also sent to it as image parts of
   * a user message after the round's tool messages (the tool message keeps its text description).
   */
  imageResults: boolean().default(false),
});
