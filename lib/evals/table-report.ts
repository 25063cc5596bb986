/**
 * The scorecard for a terminal: one line per case (status, pass rate, case name), then each
 * failing run's reasons and where its trace is, then the totals.
 */
import { failureLines, traceReference, type CaseScore, type Scorecard } from './scorecard.ts';
import { displayWidth, fitTo } from './text-width.ts';

const NAME_WIDTH = 48;

export const rateText = (score: Pick<CaseScore, 'passedRuns' | 'runs'>): string => `${score.passedRuns}/${score.runs.length}${score.runs.length > 1 ? ` ${Math.round((score.passedRuns / Math.max(1, score.runs.length)) * 100)}%` : ''}`;

export function tableReport(scorecard: Scorecard): string {
  const width = Math.min(NAME_WIDTH, Math.max(4, ...scorecard.cases.map((each) => displayWidth(each.name))));
  const lines = [
    `${scorecard.suite} — ${scorecard.configuration}`,
    '',
    `${'     '} ${fitTo('case', width)}  runs passed`,
    ...scorecard.cases.map((each) => `${each.passed ? 'PASS ' : 'FAIL '} ${fitTo(each.name, width)}  ${rateText(each)}${each.requiredRate < 1 ? ` (needs ${Math.round(each.requiredRate * 100)}%)` : ''}`),
  ];
  const failing = scorecard.cases.filter((each) => each.runs.some((run) => !run.passed));
  if (failing.length > 0) lines.push('', 'Failures:');
  for (const each of failing) {
    for (const run of each.runs.filter((candidate) => !candidate.passed)) {
      lines.push(`  ${each.name}${each.runs.length > 1 ? ` (run ${run.run})` : ''}`);
      lines.push(...failureLines(run).map((line) => `    ${line}`));
      const trace = traceReference(run);
      if (trace) lines.push(`    trace: ${trace}`);
    }
  }
  const { totals } = scorecard;
  lines.push('', `${totals.passedCases}/${totals.cases} cases passed, ${totals.passedRuns}/${totals.runs} runs passed, in ${(scorecard.durationMs / 1000).toFixed(1)} s`);
  lines.push(`model tokens: ${totals.promptTokens.toLocaleString('en-US')} prompt, ${totals.completionTokens.toLocaleString('en-US')} completion`);
  return lines.map((line) => line.trimEnd()).join('\n') + '\n';
}
