import type { AgentConfig } from '../config/load.ts';
import { ConfigError } from '../core/errors.ts';
import type { TurnStrategy } from '../agent/loop/turn-strategy.ts';
import { planExecuteStrategy } from '#plan-execute';
import { reactStrategy } from './react.ts';
import { configuredReflection, type ReflectionServices } from '#reflection';

/**
 * How a turn's rounds run, as agent.yml's `strategy` says: the plain loop, plan-execute's phases
 * on it, or a reflection strategy's trials, critiques and samples. A new strategy is a folder here
 * and a case below (and its name in lib/config/schema/strategies.ts). Each strategy but react is imported through
 * package.json `imports` (`#plan-execute`, `#reflection`), so a Lambda bundle carries only the
 * strategy its agent.yml runs (infra/bundling.ts).
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

/** A reflection strategy runs the turn: reflexion, or react with Self-Refine or self-consistency on. */
export const reflecting = (config: Pick<AgentConfig, 'strategy' | 'reflection'>): boolean =>
  config.strategy === 'reflexion' || (config.strategy === 'react' && (config.reflection.selfRefine || config.reflection.samples > 1));
