import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../lib/evals/command-line.ts';

describe('the arguments of npm run eval', () => {
  it('reads one configuration with its overrides and outputs', () => {
    expect(parseArguments(['suite.yml', '--config', 'a.yml', '--model=gpt-4o', '--provider', 'openai', '--repeat', '3', '--concurrency', '2', '--json', 'out.json', '--junit', 'out.xml', '--data-dir', '.data'])).toEqual({
      kind: 'run',
      arguments: { suitePath: 'suite.yml', targets: [{ configPath: 'a.yml', model: 'gpt-4o', provider: 'openai' }], repeat: 3, concurrency: 2, jsonPath: 'out.json', junitPath: 'out.xml', dataDir: '.data' },
    });
  });

  it.each([
    ['--compare', ['s.yml', '--config', 'a.yml', '--compare', 'b.yml'], [{ configPath: 'a.yml' }, { configPath: 'b.yml' }]],
    ['two --config', ['s.yml', '--config', 'a.yml', '--config', 'b.yml'], [{ configPath: 'a.yml' }, { configPath: 'b.yml' }]],
    ['two --model on one configuration', ['s.yml', '--model', 'gpt-4o', '--model', 'gpt-4o-mini'], [{ model: 'gpt-4o' }, { model: 'gpt-4o-mini' }]],
    ['--compare with one model for both', ['s.yml', '--compare', 'b.yml', '--model', 'demo'], [{ configPath: 'b.yml', model: 'demo' }]],
  ])('compares two configurations given by %s', (_, argv, targets) => {
    expect(parseArguments(argv)).toMatchObject({ kind: 'run', arguments: { targets, concurrency: 4 } });
  });

  it.each([
    [[], 'name the suite to run, e.g. npm run eval -- evals/demo.yml'],
    [['a.yml', 'b.yml'], 'one suite at a time; got a.yml, b.yml'],
    [['s.yml', '--repeats', '2'], 'unknown option --repeats (known: --config, --model, --provider, --compare, --repeat, --concurrency, --json, --junit, --data-dir, --help)'],
    [['s.yml', '--concurrency', '0'], '--concurrency takes a whole number from 1, not "0"'],
    [['s.yml', '--json'], '--json needs a value'],
    [['s.yml', '--config', 'a', '--config', 'b', '--compare', 'c'], 'compare two configurations at most: two --config (or --config and --compare), or two --model'],
    [['s.yml', '--provider', 'bedrock'], '--provider goes with --model'],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseArguments(argv)).toThrow(message);
  });

  it('asks for help', () => {
    expect(parseArguments(['--help'])).toEqual({ kind: 'help' });
  });
});
