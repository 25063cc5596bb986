import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * Which turn strategies an agent.yml runs, read as written (the synth needs no environment): only
 * those are bundled into the functions (infra/bundling.ts). A `${VAR}` where a strategy is chosen
 * could be anything, so it bundles every strategy it could name.
 */
export function bundledStrategies(agentConfigFile: string): { planExecute: boolean; reflection: boolean } {
  const document = parseYaml(readFileSync(agentConfigFile, 'utf8')) as { strategy?: unknown; reflection?: { selfRefine?: unknown; samples?: unknown } } | null;
  const strategy = document?.strategy ?? 'react';
  const variable = (value: unknown) => typeof value === 'string' && value.includes('${');
  const selfRefine = document?.reflection?.selfRefine;
  const samples = document?.reflection?.samples;
  const reflectsOnReact = selfRefine === true || selfRefine === 'true' || variable(selfRefine) || variable(samples) || Number(samples) > 1;
  return {
    planExecute: strategy === 'plan-execute' || variable(strategy),
    reflection: strategy === 'reflexion' || variable(strategy) || (strategy === 'react' && reflectsOnReact),
  };
}
