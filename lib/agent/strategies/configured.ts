import type { AgentConfig } from '../../config/load.ts';
import { ConfigError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { NoteStore } from '../../core/ports.ts';
import { ms } from '../../core/time.ts';
import type { AgentExtension } from '../extension.ts';
import { reactStrategy, type TurnStrategy } from '../turn-strategy.ts';
import { historySummaryExtension } from './history-summary.ts';
import { memoryExtension } from './memory.ts';
import { planExecuteStrategy } from './plan-execute/driver.ts';
import { planViewExtension } from './plan-execute/view.ts';
import { reflectionStrategy } from './reflection/driver.ts';
import { lessonsExtension } from './reflection/lessons.ts';
import { builtInApproval } from '../tool-policy.ts';
import { reflectionViewExtension } from './reflection/view.ts';
import { todoListExtension } from './todo-list.ts';
import { toolRoutingExtension } from './tool-routing.ts';
import { traceExtension } from './trace/extension.ts';

/** What some strategies need besides agent.yml. */
interface StrategyServices {
  logger: Logger;
  /** Where memory notes are kept (memory: true). */
  notes?: NoteStore;
  now?: () => number;
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
  if (reflecting(config)) extensions.push(reflectionViewExtension());
  if (config.strategy === 'reflexion' && config.reflection.lessons > 0 && config.memory.enabled && services.notes) extensions.push(lessonsExtension(services.notes, { lessons: config.reflection.lessons, mayKeep: !lessonsNeedApproval(config), maxNotes: config.memory.maxNotes, maxNoteChars: config.memory.maxNoteChars, logger: services.logger, ...(services.now ? { now: services.now } : {}) }));
  if (config.history.strategy === 'summarize') {
    extensions.push(historySummaryExtension({ ...config.history.summary, modelTimeoutMs: ms(config.model.timeoutSeconds), logger: services.logger }));
  }
  if (config.memory.enabled) {
    if (!services.notes) throw new ConfigError('memory is on in agent.yml, but the agent has no note store: buildAgent keeps notes in the conversation table; code that calls createAgent passes `notes` (createMemoryNoteStore() in tests)');
    extensions.push(memoryExtension(services.notes, { ...config.memory, logger: services.logger, ...(services.now ? { now: services.now } : {}) }));
  }
  return [...extensions, ...own, traceExtension(config.trace)];
}

/** How the turn's rounds run: the plain loop, plan-execute's phases on it, or a reflection strategy's. */
export function configuredStrategy(config: AgentConfig, services: Pick<StrategyServices, 'notes'> = {}): TurnStrategy {
  if (config.strategy === 'plan-execute') {
    if (reflecting({ ...config, strategy: 'react' })) throw new ConfigError('reflection.selfRefine and reflection.samples apply to the strategies react and reflexion, not plan-execute');
    return planExecuteStrategy(config);
  }
  if (!reflecting(config)) return reactStrategy;
  const reflexion = config.strategy === 'reflexion';
  // Lessons live in the owner's memory, where GET and DELETE /memory reach them: memory must be on.
  const keepsLessons = reflexion && config.reflection.lessons > 0 && config.memory.enabled && services.notes !== undefined && !lessonsNeedApproval(config);
  return reflectionStrategy({ ...config.reflection, maxTrials: reflexion ? config.reflection.maxTrials : 1, keepsLessons });
}

/** A reflection strategy runs the turn: reflexion, or react with Self-Refine or self-consistency on. */
const reflecting = (config: AgentConfig) => config.strategy === 'reflexion' || (config.strategy === 'react' && (config.reflection.selfRefine || config.reflection.samples > 1));

/** Lessons change what later conversations see, as `remember` does: kept only where such a call would need no approval. */
const lessonsNeedApproval = (config: AgentConfig) =>
  builtInApproval(config.builtInTools.requireApproval, new Map(config.mcpServers.map((server) => [server.name, server])))({
    definition: { name: 'lesson', description: 'A Reflexion lesson', parameters: { type: 'object' }, annotations: { readOnlyHint: false, destructiveHint: false } },
    changesLaterConversations: true,
    run: () => ({ ok: false, text: '' }),
  });
