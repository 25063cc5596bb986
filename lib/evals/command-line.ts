/**
 * The arguments of `npm run eval -- suite.yml [options]`, read into what to run: the suite, and one
 * configuration, or two to compare (two --config, --compare, or two --model).
 */
import { ConfigError } from '../core/errors.ts';

export const DEFAULT_CONCURRENCY = 4;

export const USAGE = `Usage: npm run eval -- <suite.yml> [options]

  --config <agent.yml>     the agent's configuration (default: the suite's "config", then AGENT_CONFIG, then agent.yml)
  --model <name>           the model to run, in place of the configuration's (as LLM_MODEL: "demo" is the offline model)
  --provider <name>        the model's provider with --model: openai | bedrock | demo
  --compare <agent.yml>    run a second configuration (B) on the same suite and show both side by side;
                           so do two --config, or two --model (the first of each is A, the second B)
  --repeat <n>             runs of every case (pass rates are reported)
  --concurrency <n>        runs at the same time (default ${DEFAULT_CONCURRENCY})
  --data-dir <folder>      keep the conversations (and their traces) in an embedded DynamoDB in this folder,
                           as npm start does with LOCAL_DATA_DIR (default: in memory, gone when the run ends)
  --json <file>            write the scorecard as JSON
  --junit <file>           write the scorecard as JUnit XML, for CI
  --help                   this text

Exit status: 0 when every case passes, 1 when one fails, 2 when the suite or the options are wrong.`;


/** One configuration to run: an agent.yml (else the default) and a model (else its own). */
export interface RunTarget {
  configPath?: string;
  model?: string;
  provider?: string;
}

export interface EvalArguments {
  suitePath: string;
  targets: RunTarget[];
  repeat?: number;
  concurrency: number;
  jsonPath?: string;
  junitPath?: string;
  /** Where the conversations are kept (dynalite); undefined: in memory. */
  dataDir?: string;
}

export type ParsedArguments = { kind: 'help' } | { kind: 'run'; arguments: EvalArguments };

const VALUED = ['--config', '--model', '--provider', '--compare', '--repeat', '--concurrency', '--json', '--junit', '--data-dir'];

/** Throws ConfigError with what to fix. */
export function parseArguments(argv: readonly string[]): ParsedArguments {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  const values = new Map<string, string[]>();
  const positional: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    const [flag, inline] = argument.startsWith('--') && argument.includes('=') ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)] : [argument, undefined];
    if (!flag.startsWith('-')) {
      positional.push(argument);
      continue;
    }
    if (!VALUED.includes(flag)) throw new ConfigError(`unknown option ${flag} (known: ${VALUED.join(', ')}, --help)`);
    const value = inline ?? argv[++index];
    if (value === undefined || value === '') throw new ConfigError(`${flag} needs a value`);
    values.set(flag, [...(values.get(flag) ?? []), value]);
  }
  if (positional.length !== 1) throw new ConfigError(positional.length === 0 ? 'name the suite to run, e.g. npm run eval -- evals/demo.yml' : `one suite at a time; got ${positional.join(', ')}`);
  const configs = values.get('--config') ?? [];
  const compared = values.get('--compare') ?? [];
  const models = values.get('--model') ?? [];
  const providers = values.get('--provider') ?? [];
  if (compared.length > 1 || (compared.length > 0 && configs.length > 1) || configs.length > 2 || models.length > 2) {
    throw new ConfigError('compare two configurations at most: two --config (or --config and --compare), or two --model');
  }
  if (providers.length > 1) throw new ConfigError('--provider once: it applies to every --model');
  if (providers.length > 0 && models.length === 0) throw new ConfigError('--provider goes with --model');
  // Values pair up in order: the first --config and --model are A, the second B (--compare is always B's
  // configuration). One configuration with two models runs both on it; a side without a model uses its configuration's.
  const sides: Array<string | undefined> = compared.length > 0 ? [configs[0], compared[0]] : configs;
  const count = Math.max(1, sides.length, models.length);
  const targets = Array.from({ length: count }, (_, index): RunTarget => {
    const configPath = sides.length === 1 ? sides[0] : sides[index];
    const model = count === 1 ? models[0] : models[index];
    return { ...(configPath ? { configPath } : {}), ...(model ? { model, ...(providers[0] ? { provider: providers[0] } : {}) } : {}) };
  });
  const single = (flag: string) => {
    const given = values.get(flag) ?? [];
    if (given.length > 1) throw new ConfigError(`${flag} once`);
    return given[0];
  };
  const repeat = single('--repeat');
  const concurrency = single('--concurrency');
  const jsonPath = single('--json');
  const junitPath = single('--junit');
  const dataDir = single('--data-dir');
  return {
    kind: 'run',
    arguments: {
      suitePath: positional[0]!,
      targets,
      ...(repeat !== undefined ? { repeat: wholeNumber('--repeat', repeat) } : {}),
      concurrency: concurrency !== undefined ? wholeNumber('--concurrency', concurrency) : DEFAULT_CONCURRENCY,
      ...(jsonPath ? { jsonPath } : {}),
      ...(junitPath ? { junitPath } : {}),
      ...(dataDir ? { dataDir } : {}),
    },
  };
}

function wholeNumber(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${flag} takes a whole number from 1, not "${text}"`);
  return value;
}
