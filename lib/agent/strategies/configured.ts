import type { AgentConfig } from '../../config/load.ts';
import { ConfigError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { CodeFilesFor, CodeSandbox } from '../../core/code-sandbox.ts';
import type { NoteStore } from '../../core/ports.ts';
import { ms } from '../../core/time.ts';
import type { AgentExtension } from '../extension.ts';
import { reactStrategy, type TurnStrategy } from '../turn-strategy.ts';
import { codeInterpreterExtension } from './code-interpreter/extension.ts';
import { historySummaryExtension } from './history-summary.ts';
import { memoryExtension } from './memory.ts';
import { planExecuteStrategy } from './plan-execute/driver.ts';
import { planViewExtension } from './plan-execute/view.ts';
import { todoListExtension } from './todo-list.ts';
import { toolRoutingExtension } from './tool-routing.ts';
import { traceExtension } from './trace/extension.ts';

/** What some strategies need besides agent.yml. */
interface StrategyServices {
  logger: Logger;
  /** Where memory notes are kept (memory: true). */
  notes?: NoteStore;
  now?: () => number;
  /** Where the code interpreter runs Python (codeInterpreter: true), and the conversations' files it reads and writes. */
  codeSandbox?: CodeSandbox;
  codeFiles?: CodeFilesFor;
}

/**
 * The extensions of every turn, in the order they run: the strategies agent.yml turns on, then
 * the embedding code's own (`own`), then the trace, innermost, so it records each model call as it
 * is finally sent, whatever the others changed.
 */
export function configuredExtensions(config: AgentConfig, services: StrategyServices, own: readonly AgentExtension[] = []): AgentExtension[] {
  const extensions: AgentExtension[] = [];
  const routing = toolRoutingExtension(config.tools);
  if (routing) extensions.push(routing);
  if (config.todoList) extensions.push(todoListExtension());
  if (config.strategy === 'plan-execute') extensions.push(planViewExtension());
  if (config.history.strategy === 'summarize') {
    extensions.push(historySummaryExtension({ ...config.history.summary, modelTimeoutMs: ms(config.model.timeoutSeconds), logger: services.logger }));
  }
  if (config.memory.enabled) {
    if (!services.notes) throw new ConfigError('memory is on in agent.yml, but the agent has no note store: buildAgent keeps notes in the conversation table; code that calls createAgent passes `notes` (createMemoryNoteStore() in tests)');
    extensions.push(memoryExtension(services.notes, { ...config.memory, logger: services.logger, ...(services.now ? { now: services.now } : {}) }));
  }
  if (config.codeInterpreter.enabled) extensions.push(codeInterpreterExtension(codeInterpreterSettings(config, services)));
  return [...extensions, ...own, traceExtension(config.trace)];
}

function codeInterpreterSettings(config: AgentConfig, services: StrategyServices) {
  if (!services.codeSandbox) throw new ConfigError('codeInterpreter is on in agent.yml, but the agent has no Python sandbox: buildAgent makes one; code that calls createAgent passes `codeSandbox` (createPythonSandbox())');
  const { timeoutSeconds, maxMemoryMb } = config.codeInterpreter;
  return {
    timeoutMs: ms(timeoutSeconds),
    maxMemoryBytes: maxMemoryMb * 1024 * 1024,
    modelTimeoutMs: ms(config.model.timeoutSeconds),
    sandbox: services.codeSandbox,
    ...(services.codeFiles ? { files: services.codeFiles } : {}),
  };
}

/** How the turn's rounds run: the plain loop, or plan-execute's phases on it. */
export function configuredStrategy(config: AgentConfig): TurnStrategy {
  return config.strategy === 'plan-execute' ? planExecuteStrategy(config) : reactStrategy;
}
