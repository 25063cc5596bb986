import { describe, expect, it } from 'vitest';
import { configuredStrategy } from '../../lib/strategies/configured.ts';
import { reactStrategy } from '../../lib/strategies/react.ts';
import { parseConfig } from '../../lib/config/load.ts';

const config = (yaml: string) => parseConfig(yaml, { source: 'agent.yml', environment: {} });

describe('agent.yml reflection', () => {
  it('has defaults that leave the plain loop as it is', () => {
    const parsed = config('');
    expect(parsed.reflection).toMatchObject({ selfRefine: false, maxRevisions: 2, maxTrials: 3, evaluate: true, lessons: 3, samples: 1 });
    expect(parsed.reflection.trialRounds).toBeUndefined();
    expect(parsed.reflection.judgePrompt).toBeUndefined();
    expect(configuredStrategy(parsed)).toBe(reactStrategy);
  });

  it.each([
    ['reflection: { selfRefine: true }'],
    ['reflection: { samples: 3 }'],
    ['strategy: reflexion'],
  ])('runs a reflection strategy with %s', (yaml) => {
    expect(configuredStrategy(config(yaml))).not.toBe(reactStrategy);
  });

  it('rejects a misspelt key, naming it', () => {
    expect(() => config('reflection: { maxRevision: 2 }')).toThrow(/maxRevision/);
  });

  it('rejects Self-Refine or samples with plan-execute, which has its own summary', () => {
    expect(() => configuredStrategy(config('strategy: plan-execute\nreflection: { selfRefine: true }'))).toThrow(/react and reflexion, not plan-execute/);
  });
});
