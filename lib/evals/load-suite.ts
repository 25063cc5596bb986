import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ENV, type Environment } from '../config/environment.ts';
import { interpolateEnvironment } from '../config/interpolate.ts';
import { formatIssues } from '../config/issues.ts';
import { parseConfig } from '../config/load.ts';
import type { ModelSettings } from '../providers/model-provider.ts';
import { ConfigError, errorMessage } from '../core/errors.ts';
import { isJsonObject } from '../core/json.ts';
import { suiteSchema, type EvalTurn } from './suite-schema.ts';

/** A case as the runner sees it: always a list of turns, with its runs and pass mark settled. */
export interface EvalCase {
  name: string;
  turns: EvalTurn[];
  repeat: number;
  passRate: number;
}

export interface Suite {
  name: string;
  /** The suite file, absolute. */
  source: string;
  /** agent.yml named by the suite, absolute; undefined when it names none. */
  configPath?: string;
  judge?: { model: ModelSettings; threshold: number };
  cases: EvalCase[];
}

/** Reads and validates a suite file once, before anything runs. Throws ConfigError saying what to fix. */
export function loadSuite(path: string, environment: Environment): Suite {
  const source = resolve(path);
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the evaluation suite ${source}: ${errorMessage(error)}`, { cause: error });
  }
  return parseSuite(text, { source, environment });
}

export function parseSuite(text: string, { source, environment }: { source: string; environment: Environment }): Suite {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${source} is not valid YAML: ${errorMessage(error)}`, { cause: error });
  }
  if (!isJsonObject(document)) throw new ConfigError(`${source} must be a YAML mapping with a "cases" list (see docs/evaluations.md)`);
  // The judge's model block is read as agent.yml reads its own (its ${VAR}s included), so it is left as written here.
  const { judge, ...rest } = document;
  let interpolated: unknown;
  try {
    const judgeFields = isJsonObject(judge) ? { judge: { ...(interpolateEnvironment({ ...judge, model: undefined }, environment, 'judge') as object), model: judge['model'] } } : judge === undefined ? {} : { judge };
    interpolated = { ...(interpolateEnvironment(rest, environment) as object), ...judgeFields };
  } catch (error) {
    throw new ConfigError(`${source} is invalid:\n  - ${errorMessage(error)}`, { cause: error });
  }
  const parsed = suiteSchema.safeParse(interpolated, { jitless: true });
  if (!parsed.success) throw new ConfigError(`${source} is invalid:\n${formatIssues(parsed.error.issues, '', suiteSchema)}`);
  const file = parsed.data;

  const cases = file.cases.map((each): EvalCase => ({
    name: each.name,
    turns: each.turns ?? [{ question: each.question!, expect: each.expect ?? {}, ...(each.approvals ? { approvals: each.approvals } : {}) }],
    repeat: each.repeat ?? file.repeat,
    passRate: each.passRate ?? file.passRate,
  }));
  const judged = cases.flatMap((each, index) => (each.turns.some((turn) => turn.expect.judge) ? [`cases.${index}`] : []));
  if (judged.length > 0 && !file.judge) {
    throw new ConfigError(`${source} is invalid:\n  - judge: ${judged.join(', ')} grade with a judge; give the judge's model, e.g. judge: { model: { provider: openai, name: gpt-4o-mini, apiKey: \${OPENAI_API_KEY} } }`);
  }
  return {
    name: file.name ?? basename(source).replace(/\.ya?ml$/, ''),
    source,
    ...(file.config ? { configPath: resolve(dirname(source), file.config) } : {}),
    ...(file.judge ? { judge: { model: judgeModelSettings(file.judge.model, source, environment), threshold: file.judge.threshold } } : {}),
    cases,
  };
}

/**
 * The judge's `model` block, read by agent.yml's own schema: the same keys and defaults. The
 * environment's model overrides (LLM_MODEL, OPENAI_BASE_URL, ...) are the agent's, not the judge's:
 * the judge is what its block says (write `apiKey: ${OPENAI_API_KEY}` to take a key from there).
 */
function judgeModelSettings(block: Record<string, unknown>, source: string, environment: Environment): ModelSettings {
  const { [ENV.modelBaseUrl]: _baseURL, [ENV.modelApiKey]: _apiKey, [ENV.modelName]: _name, [ENV.modelProvider]: _provider, ...rest } = environment;
  try {
    // JSON is YAML: the block goes through parseConfig as it was written.
    return parseConfig(JSON.stringify({ model: block }), { source: `${source} (judge)`, environment: rest }).model;
  } catch (error) {
    throw new ConfigError(errorMessage(error).replace(/^(\s+- )model\./gm, '$1judge.model.'), { cause: error });
  }
}
