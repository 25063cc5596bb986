/**
 * Two configurations on the same suite, side by side (--compare): each case's pass rate under
 * both, and which way it moved, then the totals. The cases that changed are the point: listed
 * first in the summary, with the reasons of the side that fails.
 */
import { failureLines, type CaseScore, type Scorecard } from './scorecard.ts';
import { rateText } from './table-report.ts';
import { displayWidth, fitTo } from './text-width.ts';

const NAME_WIDTH = 40;
const SIDE_WIDTH = 14;

export type Change = 'same' | 'better' | 'worse';

export interface CaseComparison {
  name: string;
  before: CaseScore;
  after: CaseScore;
  change: Change;
}

/** Each case of the first scorecard beside the same case in the second. */
export function compareScorecards(first: Scorecard, second: Scorecard): CaseComparison[] {
  return first.cases.flatMap((before) => {
    const after = second.cases.find((each) => each.name === before.name);
    if (!after) return [];
    const change: Change = after.passRate > before.passRate ? 'better' : after.passRate < before.passRate ? 'worse' : 'same';
    return [{ name: before.name, before, after, change }];
  });
}

export function compareReport(first: Scorecard, second: Scorecard): string {
  const comparisons = compareScorecards(first, second);
  const width = Math.min(NAME_WIDTH, Math.max(4, ...comparisons.map((each) => displayWidth(each.name))));
  const side = (score: CaseScore) => fitTo(`${score.passed ? 'PASS' : 'FAIL'} ${rateText(score)}`, SIDE_WIDTH);
  const lines = [
    `${first.suite}: A = ${first.configuration}`,
    `${' '.repeat(displayWidth(first.suite))}  B = ${second.configuration}`,
    '',
    `${fitTo('case', width)}  ${fitTo('A', SIDE_WIDTH)}  ${fitTo('B', SIDE_WIDTH)}  change`,
    ...comparisons.map((each) => `${fitTo(each.name, width)}  ${side(each.before)}  ${side(each.after)}  ${each.change === 'same' ? '' : each.change === 'better' ? 'better in B' : 'worse in B'}`),
    '',
    `${fitTo('cases passed', width)}  ${fitTo(`${first.totals.passedCases}/${first.totals.cases}`, SIDE_WIDTH)}  ${fitTo(`${second.totals.passedCases}/${second.totals.cases}`, SIDE_WIDTH)}`,
    `${fitTo('runs passed', width)}  ${fitTo(`${first.totals.passedRuns}/${first.totals.runs}`, SIDE_WIDTH)}  ${fitTo(`${second.totals.passedRuns}/${second.totals.runs}`, SIDE_WIDTH)}`,
    `${fitTo('model tokens', width)}  ${fitTo(tokensText(first), SIDE_WIDTH)}  ${fitTo(tokensText(second), SIDE_WIDTH)}`,
  ];
  const changed = comparisons.filter((each) => each.change !== 'same');
  lines.push('', changed.length === 0 ? 'No case changed.' : `${changed.length} case(s) changed: ${changed.filter((each) => each.change === 'better').length} better in B, ${changed.filter((each) => each.change === 'worse').length} worse in B.`);
  for (const each of changed) {
    const failing = each.change === 'worse' ? { label: 'B', score: each.after } : { label: 'A', score: each.before };
    const run = failing.score.runs.find((candidate) => !candidate.passed);
    lines.push(`  ${each.name}: ${each.change === 'worse' ? 'worse' : 'better'} in B${run ? ` (${failing.label}: ${failureLines(run)[0] ?? 'failed'})` : ''}`);
  }
  return lines.map((line) => line.trimEnd()).join('\n') + '\n';
}

const tokensText = (scorecard: Scorecard) => (scorecard.totals.promptTokens + scorecard.totals.completionTokens).toLocaleString('en-US');
