import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledStrategies } from '../../infra/bundled-strategies.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const folder = temporaryFolder('bundled-strategies-');
const strategiesOf = (yaml: string) => {
  const file = path.join(folder, `agent-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, yaml);
  return bundledStrategies(file);
};

describe('bundledStrategies: the turn strategies an agent.yml runs, and so what its functions bundle', () => {
  it('bundles neither for the plain loop', () => {
    expect(strategiesOf('model: { name: gpt-4o-mini }\n')).toEqual({ planExecute: false, reflection: false });
    expect(strategiesOf('strategy: react\nreflection: { samples: 1 }\n')).toEqual({ planExecute: false, reflection: false });
  });

  it('bundles the strategy agent.yml names, and reflection for Self-Refine or samples on react', () => {
    expect(strategiesOf('strategy: plan-execute\n')).toEqual({ planExecute: true, reflection: false });
    expect(strategiesOf('strategy: reflexion\n')).toEqual({ planExecute: false, reflection: true });
    expect(strategiesOf('reflection: { selfRefine: true }\n')).toEqual({ planExecute: false, reflection: true });
    expect(strategiesOf('reflection: { samples: 3 }\n')).toEqual({ planExecute: false, reflection: true });
  });

  it('bundles every strategy a variable could name', () => {
    expect(strategiesOf('strategy: ${STRATEGY}\n')).toEqual({ planExecute: true, reflection: true });
    expect(strategiesOf('reflection: { samples: "${SAMPLES}" }\n')).toEqual({ planExecute: false, reflection: true });
  });
});

describe('the stack bundles what its agent.yml runs', () => {
  const ENV = { account: '123456789012', region: 'eu-west-1' };
  it('passes the strategies of agent.yml to the functions\' bundling', async () => {
    const { buildStack } = await import('../support/stack-template.ts');
    const planExecute = path.join(folder, 'plan-execute.yml');
    writeFileSync(planExecute, 'strategy: plan-execute\n');
    expect(buildStack({ agentConfig: planExecute }, ENV).functionBundle).toMatchObject({ planExecute: true, reflection: false });
    expect(buildStack({}, ENV).functionBundle).toMatchObject({ planExecute: false, reflection: false });
  }, 60_000);
});
