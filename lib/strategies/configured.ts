import type { AgentConfig } from '../config/load.ts';
import type { TurnStrategy } from '../agent/loop/turn-strategy.ts';
import { planExecuteStrategy } from './plan-execute/driver.ts';
import { reactStrategy } from './react.ts';

/**
 * How a turn's rounds run, as agent.yml's `strategy` says: the plain loop, or plan-execute's phases
 * on it. A new strategy is a folder here and a line below (and its name in lib/config/schema.ts).
 */
export function configuredStrategy(config: AgentConfig): TurnStrategy {
  switch (config.strategy) {
    case 'plan-execute':
      return planExecuteStrategy(config);
    case 'react':
      return reactStrategy;
  }
}
