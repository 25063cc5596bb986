/** The scorecard as JSON (--json): everything the table shows, each run's turns, and a failing turn's trace. */
import { failureLines, traceReference, type Scorecard } from './scorecard.ts';

/** Bumped when a field changes meaning, so a CI script can tell which shape it reads. */
export const JSON_REPORT_VERSION = 1;

export function jsonReport(scorecards: Scorecard[]): string {
  return JSON.stringify(
    {
      version: JSON_REPORT_VERSION,
      passed: scorecards.every((scorecard) => scorecard.passed),
      configurations: scorecards.map((scorecard) => ({
        ...scorecard,
        cases: scorecard.cases.map((each) => ({
          ...each,
          runs: each.runs.map((run) => ({ ...run, ...(run.passed ? {} : { reasons: failureLines(run), traceRoute: traceReference(run) }) })),
        })),
      })),
    },
    null,
    2,
  ) + '\n';
}
