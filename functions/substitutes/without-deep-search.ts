/**
 * Stands in for deep search (`#deep-search`: lib/extensions/deep-search/configured.ts) in the
 * Lambda bundles of a configuration without it (infra/bundling.ts, functionSubstitutes). A function
 * that finds it on anyway fails its cold start, saying why.
 */
import type { AgentExtension } from '../../lib/agent/extension-api/extension.ts';

export function configuredDeepSearch(): AgentExtension {
  throw new Error('bundled without deep search: deploy again with deepSearch set in agent.yml');
}
