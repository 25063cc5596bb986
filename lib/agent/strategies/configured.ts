import type { AgentConfig } from '../../config/load.ts';
import type { AgentExtension } from '../extension.ts';
import { reactStrategy, type TurnStrategy } from '../turn-strategy.ts';
import { planExecuteStrategy } from './plan-execute/driver.ts';
import { planViewExtension } from './plan-execute/view.ts';
import { todoListExtension } from './todo-list.ts';
import { toolRoutingExtension } from './tool-routing.ts';
import { traceExtension } from './trace/extension.ts';

/**
 * The extensions of every turn, in the order they run: the strategies agent.yml turns on, then
 * the embedding code's own (`own`), then the trace, innermost, so it records each model call as it
 * is finally sent, whatever the others changed.
 */
export function configuredExtensions(config: AgentConfig, own: readonly AgentExtension[] = []): AgentExtension[] {
  const extensions: AgentExtension[] = [];
  const routing = toolRoutingExtension(config.tools);
  if (routing) extensions.push(routing);
  if (config.todoList) extensions.push(todoListExtension());
  if (config.strategy === 'plan-execute') extensions.push(planViewExtension());
  return [...extensions, ...own, traceExtension(config.trace)];
}

/** How the turn's rounds run: the plain loop, or plan-execute's phases on it. */
export function configuredStrategy(config: AgentConfig): TurnStrategy {
  return config.strategy === 'plan-execute' ? planExecuteStrategy(config) : reactStrategy;
}
