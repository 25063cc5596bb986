/**
 * `npm run eval -- suite.yml`: runs every case of an evaluation suite through the real agent (the
 * configured model and MCP servers, on an in-memory conversation store), scores it, and prints a
 * scorecard; with --compare, two configurations side by side. Exit status 0 when every case passes,
 * 1 when one fails, 2 when the suite or the options are wrong. docs/evaluations.md says how to
 * write a suite.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Agent } from '../lib/agent/agent-api.ts';
import { buildAgent } from '../lib/build-agent.ts';
import { ENV, type Environment } from '../lib/config/environment.ts';
import { loadConfig, type AgentConfig } from '../lib/config/load.ts';
import { ConfigError, errorMessage } from '../lib/core/errors.ts';
import { createJsonLogger } from '../lib/core/logger.ts';
import { parseArguments, USAGE, type EvalArguments, type RunTarget } from '../lib/evals/command-line.ts';
import { compareReport } from '../lib/evals/compare-report.ts';
import { jsonReport } from '../lib/evals/json-report.ts';
import { junitReport } from '../lib/evals/junit-report.ts';
import { loadSuite, type Suite } from '../lib/evals/load-suite.ts';
import { createProgress } from '../lib/evals/progress.ts';
import type { Judge } from '../lib/evals/run-case.ts';
import { runSuite, totalRuns } from '../lib/evals/run-suite.ts';
import type { Scorecard } from '../lib/evals/scorecard.ts';
import { tableReport } from '../lib/evals/table-report.ts';
import { createConfiguredModel, modelNotConfigured } from '../lib/providers/configured-model.ts';
import { openEvalStore, type EvalStore } from './eval-store.ts';

export interface EvalCommandOptions {
  environment: Environment;
  /** The scorecard. */
  stdout(text: string): void;
  /** Progress and errors. */
  stderr(text: string): void;
  /** Draw a progress bar (stderr is a terminal) rather than a line per run. */
  terminal: boolean;
}

/** The command's work, for its own process or for a test: resolves to the exit status. */
export async function runEval(argv: readonly string[], options: EvalCommandOptions): Promise<number> {
  let parsed: ReturnType<typeof parseArguments>;
  try {
    parsed = parseArguments(argv);
  } catch (error) {
    options.stderr(`eval: ${errorMessage(error)}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.kind === 'help') {
    options.stdout(`${USAGE}\n`);
    return 0;
  }
  const settings = parsed.arguments;
  let suite: Suite;
  let configurations: Array<{ config: AgentConfig; label: string }>;
  let judge: Judge | undefined;
  let store: EvalStore;
  // Everything that can be wrong is found before the first question.
  try {
    suite = loadSuite(settings.suitePath, options.environment);
    configurations = settings.targets.map((target) => configurationFor(target, suite, options.environment));
    judge = suite.judge && judgeOf(suite.judge, options.environment);
    store = await openEvalStore(settings.dataDir, options.environment);
  } catch (error) {
    options.stderr(`eval: ${errorMessage(error)}\n`);
    return 2;
  }
  const scorecards: Scorecard[] = [];
  try {
    for (const [index, { config, label }] of configurations.entries()) {
      scorecards.push(await runConfiguration(suite, config, label, { settings, judge, store }, configurations.length > 1 ? String.fromCharCode(65 + index) : undefined, options));
    }
  } finally {
    await store.close();
  }
  for (const scorecard of scorecards) options.stdout(tableReport(scorecard) + '\n');
  if (settings.dataDir) options.stdout(`Conversations and their traces are kept in ${store.description}: LOCAL_DATA_DIR=${settings.dataDir} npm start serves them.\n`);
  if (scorecards.length === 2) options.stdout(compareReport(scorecards[0]!, scorecards[1]!));
  writeReport(settings.jsonPath, () => jsonReport(scorecards));
  writeReport(settings.junitPath, () => junitReport(scorecards));
  return scorecards.every((scorecard) => scorecard.passed) ? 0 : 1;
}

/** The agent.yml of a target (else the suite's, else the default) with its model override, checked before anything runs. */
function configurationFor(target: RunTarget, suite: Suite, environment: Environment): { config: AgentConfig; label: string } {
  // --model and --provider are what LLM_MODEL and LLM_PROVIDER are to the service.
  const overridden: Environment = { ...environment, ...(target.model ? { [ENV.modelName]: target.model } : {}), ...(target.provider ? { [ENV.modelProvider]: target.provider } : {}) };
  const config = loadConfig({ ...(target.configPath ?? suite.configPath ? { path: target.configPath ?? suite.configPath } : {}), environment: overridden });
  // The demo provider answers to any name: a --model it would swallow is said, not run as the demo model.
  if (target.model && config.model.name !== target.model) {
    throw new ConfigError(`--model ${target.model}: ${config.source} uses the ${config.model.provider} provider, which runs "${config.model.name}" whatever the name; add --provider openai (or bedrock)`);
  }
  const missing = modelNotConfigured(config.model, overridden);
  if (missing) throw new ConfigError(`the model of ${config.source} is not configured: ${missing}`);
  const shortPath = relative(process.cwd(), config.source);
  return { config, label: `${shortPath && !shortPath.startsWith('..') ? shortPath : config.source}, model ${config.model.provider}/${config.model.name}` };
}

function judgeOf(settings: NonNullable<Suite['judge']>, environment: Environment): Judge {
  const model = createConfiguredModel(settings.model, { logger: createJsonLogger('error'), environment });
  if (!model) throw new ConfigError(`the judge's model is not configured: ${modelNotConfigured(settings.model, environment)}`);
  return { model, threshold: settings.threshold };
}

interface RunServices {
  settings: EvalArguments;
  judge: Judge | undefined;
  store: EvalStore;
}

async function runConfiguration(suite: Suite, config: AgentConfig, label: string, { settings, judge, store }: RunServices, side: string | undefined, options: EvalCommandOptions): Promise<Scorecard> {
  // Each configuration gets its own agent (and, in memory, its own store).
  // Only errors are logged: the scorecard says what failed, and the progress bar keeps its line.
  const agent: Agent = buildAgent(config, { ...(await store.forConfiguration(config)), logger: createJsonLogger('error') });
  const progress = createProgress({ total: totalRuns(suite, settings.repeat), ...(side ? { label: side } : {}), write: options.stderr, terminal: options.terminal });
  try {
    return await runSuite(suite, {
      agent,
      ...(judge ? { judge } : {}),
      configuration: side ? `${side}: ${label}` : label,
      ...(settings.repeat ? { repeat: settings.repeat } : {}),
      concurrency: settings.concurrency,
      onRun: (run) => progress.runDone(run),
    });
  } finally {
    progress.finish();
    await agent.close();
  }
}

function writeReport(path: string | undefined, text: () => string): void {
  if (!path) return;
  const target = resolve(path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text());
}

if (import.meta.main) {
  process.exitCode = await runEval(process.argv.slice(2), {
    environment: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    terminal: process.stderr.isTTY === true,
  });
}
