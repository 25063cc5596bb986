import type { AgentConfig } from '../config/load.ts';
import { ConfigError } from '../core/errors.ts';
import type { TurnStrategy } from '../agent/loop/turn-strategy.ts';
import { planExecuteStrategy } from './plan-execute/driver.ts';
import { reactStrategy } from './react.ts';
import { configuredReflection, reflecting, type ReflectionServices } from './reflection/configured.ts';

/**
 * How a turn's rounds run, as agent.yml's `strategy` says: the plain loop, plan-execute's phases
 * on it, or a reflection strategy's trials, critiques and samples. A new strategy is a folder here
 * and a case below (and its name in lib/config/schema.ts).
 */
export function configuredStrategy(config: AgentConfig, services: ReflectionServices = {}): TurnStrategy {
  switch (config.strategy) {
    case 'plan-execute':
      if (reflecting({ ...config, strategy: 'react' })) throw new ConfigError('reflection.selfRefine and reflection.samples apply to the strategies react and reflexion, not plan-execute');
      return planExecuteStrategy(config);
    case 'reflexion':
      return configuredReflection(config, services);
    case 'react':
      return reflecting(config) ? configuredReflection(config, services) : reactStrategy;
  }
}
