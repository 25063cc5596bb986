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
    ['--compare, beside the suite\'s own configuration', ['s.yml', '--compare', 'b.yml'], [{}, { configPath: 'b.yml' }]],
    ['--config and --compare', ['s.yml', '--config', 'a.yml', '--compare', 'b.yml'], [{ configPath: 'a.yml' }, { configPath: 'b.yml' }]],
    ['two --config', ['s.yml', '--config', 'a.yml', '--config', 'b.yml'], [{ configPath: 'a.yml' }, { configPath: 'b.yml' }]],
    ['two --model on one configuration', ['s.yml', '--config', 'a.yml', '--model', 'gpt-4o', '--model', 'gpt-4o-mini', '--provider', 'openai'], [{ configPath: 'a.yml', model: 'gpt-4o', provider: 'openai' }, { configPath: 'a.yml', model: 'gpt-4o-mini', provider: 'openai' }]],
    ['a model for A against --compare with its own', ['s.yml', '--model', 'gpt-4o-mini', '--compare', 'evals/demo-agent.yml'], [{ model: 'gpt-4o-mini' }, { configPath: 'evals/demo-agent.yml' }]],
    ['two configurations, each with its model', ['s.yml', '--config', 'a.yml', '--config', 'b.yml', '--model', 'm1', '--model', 'm2'], [{ configPath: 'a.yml', model: 'm1' }, { configPath: 'b.yml', model: 'm2' }]],
  ])('compares two configurations given by %s', (_, argv, targets) => {
    const parsed = parseArguments(argv);
    expect(parsed.kind === 'run' && parsed.arguments.targets).toEqual(targets);
  });

  it.each([
    [[], 'name the suite to run, e.g. npm run eval -- evals/demo.yml'],
    [['a.yml', 'b.yml'], 'one suite at a time; got a.yml, b.yml'],
    [['s.yml', '--repeats', '2'], 'unknown option --repeats (known: --config, --model, --provider, --compare, --repeat, --concurrency, --json, --junit, --data-dir, --help)'],
    [['s.yml', '--concurrency', '0'], '--concurrency takes a whole number from 1, not "0"'],
    [['s.yml', '--json'], '--json needs a value'],
    [['s.yml', '--config', 'a', '--config', 'b', '--compare', 'c'], 'compare two configurations at most: two --config (or --config and --compare), or two --model'],
    [['s.yml', '--provider', 'bedrock'], '--provider goes with --model'],
    [['s.yml', '--compare', 'b', '--compare', 'c'], 'compare two configurations at most'],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseArguments(argv)).toThrow(message);
  });

  it('asks for help', () => {
    expect(parseArguments(['--help'])).toEqual({ kind: 'help' });
  });
});
