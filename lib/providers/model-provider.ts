/**
 * The seam every model provider implements (one folder each: lib/adapters/openai,
 * lib/adapters/bedrock, lib/demo), chosen by `model.provider` in lib/providers/configured-model.ts. What a
 * provider needs, whether it has it, and what to say when it does not are the provider's own.
 */
import type { Logger } from '../core/logger.ts';
import type { ModelClient } from '../core/ports/model.ts';
import type { Environment } from '../config/environment.ts';
import type { AgentConfig } from '../config/load.ts';
import type { ModelProviderName } from '../config/schema.ts';

export type ModelSettings = AgentConfig['model'];

export interface ModelProviderContext {
  logger: Logger;
  environment: Environment;
}

export interface ModelProvider {
  readonly name: ModelProviderName;
  /** What is missing, said as what to set; undefined when the provider can be built. */
  notConfigured(settings: ModelSettings, environment: Environment): string | undefined;
  /** Builds the model (and its SDK client): once per process, at the composition root. */
  create(settings: ModelSettings, context: ModelProviderContext): ModelClient;
  /**
   * A start-up check that may take a moment (credentials resolved from a profile or SSO): what is
   * missing, or undefined. The local run calls it; a Lambda finds out on its first call instead.
   */
  checkAtStart?(settings: ModelSettings): Promise<string | undefined>;
  /** Where the model is served, for start-up lines (never credentials). */
  describe(settings: ModelSettings): string;
}
