/**
 * Every run of every case of a suite, at most `concurrency` at a time (each run is its own
 * conversation, so runs never wait on each other's claims), scored as they finish.
 */
import type { Agent } from '../agent/agent-api.ts';
import type { EvalCase, Suite } from './load-suite.ts';
import { runCase, type CaseRun, type Judge } from './run-case.ts';
import { scoreSuite, type Scorecard } from './scorecard.ts';

export interface RunSuiteOptions {
  agent: Agent;
  judge?: Judge;
  /** What the scorecard calls this configuration (its agent.yml and model). */
  configuration: string;
  /** Runs of every case, in place of the suite's and the cases' own. */
  repeat?: number;
  concurrency: number;
  /** Told as each run ends (for progress). */
  onRun?: (run: CaseRun) => void;
  now?: () => number;
}

export async function runSuite(suite: Suite, options: RunSuiteOptions): Promise<Scorecard> {
  const now = options.now ?? Date.now;
  const started = now();
  const runsOf = (evalCase: EvalCase) => options.repeat ?? evalCase.repeat;
  const work = suite.cases.flatMap((evalCase) => Array.from({ length: runsOf(evalCase) }, (_, index) => ({ evalCase, run: index + 1 })));
  const runs = await inParallel(work, options.concurrency, async ({ evalCase, run }) => {
    const done = await runCase(evalCase, run, { agent: options.agent, ...(options.judge ? { judge: options.judge } : {}), now });
    options.onRun?.(done);
    return done;
  });
  return scoreSuite(suite, options.configuration, runs, now() - started);
}

/** Total runs a suite will make: the progress bar's length. */
export const totalRuns = (suite: Suite, repeat?: number): number => suite.cases.reduce((sum, evalCase) => sum + (repeat ?? evalCase.repeat), 0);

/** `work` mapped with at most `limit` running at once; results in the order of `items`. */
export async function inParallel<Item, Result>(items: Item[], limit: number, work: (item: Item) => Promise<Result>): Promise<Result[]> {
  const results: Result[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const position = next++;
      results[position] = await work(items[position]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
