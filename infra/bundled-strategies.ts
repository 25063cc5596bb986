import { agentFile, variable } from './agent-file.ts';

/**
 * Which turn strategies an agent.yml runs, read as written (the synth needs no environment): only
 * those are bundled into the functions (infra/bundling.ts). A `${VAR}` where a strategy is chosen
 * could be anything, so it bundles every strategy it could name.
 */
export function bundledStrategies(agentConfigFile: string): { planExecute: boolean; reflection: boolean } {
  const document = agentFile(agentConfigFile) as { strategy?: unknown; reflection?: { selfRefine?: unknown; samples?: unknown } };
  const strategy = document?.strategy ?? 'react';
  const selfRefine = document?.reflection?.selfRefine;
  const samples = document?.reflection?.samples;
  const reflectsOnReact = selfRefine === true || selfRefine === 'true' || variable(selfRefine) || variable(samples) || Number(samples) > 1;
  return {
    planExecute: strategy === 'plan-execute' || variable(strategy),
    reflection: strategy === 'reflexion' || variable(strategy) || (strategy === 'react' && reflectsOnReact),
  };
}
