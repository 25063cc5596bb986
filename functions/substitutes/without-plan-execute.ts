/**
 * Stands in for the plan-execute strategy (`#plan-execute`: lib/strategies/plan-execute/driver.ts)
 * in the Lambda bundles of a configuration that runs another strategy (infra/bundling.ts,
 * functionSubstitutes): only the strategy agent.yml names is bundled. A function that finds
 * plan-execute configured anyway fails its cold start, saying why.
 */
import type { TurnStrategy } from '../../lib/agent/loop/turn-strategy.ts';

export function planExecuteStrategy(): TurnStrategy {
  throw new Error('bundled without the plan-execute strategy: deploy again with strategy: plan-execute in agent.yml');
}
