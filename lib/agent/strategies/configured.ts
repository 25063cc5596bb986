import type { AgentConfig } from '../../config/load.ts';
import type { AgentExtension } from '../extension.ts';
import { todoListExtension } from './todo-list.ts';
import { toolRoutingExtension } from './tool-routing.ts';

/** The strategies agent.yml turns on, as extensions of the loop, in the order they run. */
export function configuredExtensions(config: AgentConfig): AgentExtension[] {
  const extensions: AgentExtension[] = [];
  const routing = toolRoutingExtension(config.tools);
  if (routing) extensions.push(routing);
  if (config.todoList) extensions.push(todoListExtension());
  return extensions;
}
