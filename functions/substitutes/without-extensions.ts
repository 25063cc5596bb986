/**
 * Stands in for the extensions agent.yml turns on by a switch (`#memory-extension`,
 * `#history-summary`, `#todo-list`: lib/extensions/) in the Lambda bundles of a configuration that
 * leaves them off (infra/bundling.ts, functionSubstitutes; infra/bundled-extensions.ts reads
 * agent.yml). A function that finds one on anyway fails its cold start, saying why.
 */
import type { AgentExtension } from '../../lib/agent/extension-api/extension.ts';

const notBundled = (key: string): never => {
  throw new Error(`bundled without ${key}: deploy again with ${key} on in agent.yml`);
};

export const memoryExtension = (): AgentExtension => notBundled('memory');
export const historySummaryExtension = (): AgentExtension => notBundled('history.strategy summarize');
export const todoListExtension = (): AgentExtension => notBundled('todoList');
