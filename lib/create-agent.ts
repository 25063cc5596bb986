import { assembleAgent } from './agent/agent.ts';
import { type AgentParts } from './agent/agent-parts.ts';
import type { Agent } from './agent/agent-api.ts';
import type { AgentExtension } from './agent/extension-api/extension.ts';
import type { TurnStrategy } from './agent/loop/turn-strategy.ts';
import type { AgentConfig } from './config/load.ts';
import type { CodeFilesFor, CodeSandbox } from './core/ports/code-sandbox.ts';
import { filesApi } from '#files';
import { configuredExtensions } from './extensions/configured.ts';
import { readTurnTrace } from './extensions/trace/read.ts';
import { configuredStrategy } from './strategies/configured.ts';

export interface AgentDependencies extends Omit<AgentParts, 'extensions' | 'strategy' | 'readTurnTrace' | 'filesApi'> {
  /** Your own extensions of the loop (lib/agent/extension-api/extension.ts), run after the ones agent.yml turns on. */
  extensions?: AgentExtension[];
  /**
   * How each turn uses the loop (lib/agent/loop/turn-strategy.ts): a strategy of your own, in place of
   * the one agent.yml's `strategy` chooses (lib/strategies: `react`, `plan-execute`).
   */
  strategy?: TurnStrategy;
  /** Where the code interpreter runs Python; needed when agent.yml turns codeInterpreter on. */
  codeSandbox?: CodeSandbox;
  /** The conversations' files the code interpreter reads and writes; without them it has none. */
  codeFiles?: CodeFilesFor;
}

/**
 * The agent of a configuration, from ports you give it: agent.yml chooses the turn strategy
 * (lib/strategies) and the extensions it turns on (lib/extensions); the trace runs innermost.
 */
export function createAgent(config: AgentConfig, dependencies: AgentDependencies): Agent {
  const services = { logger: dependencies.logger, gateway: dependencies.gateway, ...(dependencies.now ? { now: dependencies.now } : {}), ...(dependencies.notes ? { notes: dependencies.notes } : {}), ...(dependencies.files ? { files: dependencies.files } : {}), ...(dependencies.codeSandbox ? { codeSandbox: dependencies.codeSandbox } : {}), ...(dependencies.codeFiles ? { codeFiles: dependencies.codeFiles } : {}) };
  const strategy = dependencies.strategy ?? configuredStrategy(config, services);
  // agent.yml's extensions first, then the strategy's, then the embedding code's own, then the trace.
  const extensions = configuredExtensions(config, services, [...(strategy.extensions ?? []), ...(dependencies.extensions ?? [])]);
  const files = config.files.enabled ? dependencies.files : undefined;
  return assembleAgent(config, { ...dependencies, extensions, strategy, readTurnTrace, filesApi: filesApi(files, dependencies.store) });
}
