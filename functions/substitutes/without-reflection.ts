/**
 * Stands in for the reflection strategies (`#reflection`: lib/strategies/reflection/configured.ts)
 * in the Lambda bundles of a configuration that runs none of them (infra/bundling.ts,
 * functionSubstitutes). A function that finds one configured anyway fails its cold start, saying why.
 */
import type { TurnStrategy } from '../../lib/agent/loop/turn-strategy.ts';

export function configuredReflection(): TurnStrategy {
  throw new Error('bundled without the reflection strategies: deploy again with the reflection settings of agent.yml');
}
