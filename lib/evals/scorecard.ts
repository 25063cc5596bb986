/** The runs of a suite, per case: how many passed, the pass rate, and whether the case passes. */
import type { Suite } from './load-suite.ts';
import type { CaseRun } from './run-case.ts';

export interface CaseScore {
  name: string;
  runs: CaseRun[];
  passedRuns: number;
  passRate: number;
  /** The pass rate the case needs (its passRate, else the suite's). */
  requiredRate: number;
  passed: boolean;
}

export interface Scorecard {
  suite: string;
  /** Which configuration ran: agent.yml and model. */
  configuration: string;
  cases: CaseScore[];
  /** Tokens are the agent's model's, over every run (the judge's are not counted). */
  totals: { cases: number; passedCases: number; runs: number; passedRuns: number; promptTokens: number; completionTokens: number };
  durationMs: number;
  passed: boolean;
}

export function scoreSuite(suite: Suite, configuration: string, runs: CaseRun[], durationMs: number): Scorecard {
  const cases = suite.cases.map((evalCase): CaseScore => {
    const own = runs.filter((run) => run.caseName === evalCase.name).sort((first, second) => first.run - second.run);
    const passedRuns = own.filter((run) => run.passed).length;
    const passRate = own.length === 0 ? 0 : passedRuns / own.length;
    // A small tolerance: 2 of 3 runs against a required 0.6667 written by hand.
    return { name: evalCase.name, runs: own, passedRuns, passRate, requiredRate: evalCase.passRate, passed: own.length > 0 && passRate + 1e-9 >= evalCase.passRate };
  });
  const passedCases = cases.filter((each) => each.passed).length;
  return {
    suite: suite.name,
    configuration,
    cases,
    totals: { cases: cases.length, passedCases, runs: runs.length, passedRuns: runs.filter((run) => run.passed).length, ...tokensOf(runs) },
    durationMs,
    passed: passedCases === cases.length,
  };
}

/** The reasons a run failed, one line each, with the turn they belong to when the case has several. */
export function failureLines(run: CaseRun): string[] {
  const many = run.turns.length > 1;
  return run.turns.flatMap((turn, index) => turn.failures.map((failure) => `${many ? `turn ${index + 1}: ` : ''}[${failure.kind}] ${failure.message}`));
}

/** Where a run's failing turn can be read again: the trace route of the turn, or nothing when it never started. */
export function traceReference(run: CaseRun): string | undefined {
  const turn = run.turns.find((each) => each.failures.length > 0) ?? run.turns.at(-1);
  if (!turn?.conversationId || turn.turn === undefined) return undefined;
  return `/conversations/${turn.conversationId}/turns/${turn.turn}/trace`;
}

function tokensOf(runs: CaseRun[]): { promptTokens: number; completionTokens: number } {
  const turns = runs.flatMap((run) => run.turns);
  return {
    promptTokens: turns.reduce((sum, turn) => sum + (turn.usage?.promptTokens ?? 0), 0),
    completionTokens: turns.reduce((sum, turn) => sum + (turn.usage?.completionTokens ?? 0), 0),
  };
}
