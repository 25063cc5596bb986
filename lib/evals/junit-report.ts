/**
 * The scorecard as JUnit XML (--junit), the format CI systems read (GitHub Actions reporters,
 * GitLab, Jenkins): one testsuite per configuration, one testcase per case, a failure with every
 * failing run's reasons and trace.
 */
import { failureLines, traceReference, type Scorecard } from './scorecard.ts';
import { rateText } from './table-report.ts';

export function junitReport(scorecards: Scorecard[]): string {
  const tests = scorecards.reduce((sum, scorecard) => sum + scorecard.totals.cases, 0);
  const failures = scorecards.reduce((sum, scorecard) => sum + scorecard.totals.cases - scorecard.totals.passedCases, 0);
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${escape(scorecards[0]?.suite ?? 'evaluations')}" tests="${tests}" failures="${failures}" errors="0" time="${seconds(Math.max(0, ...scorecards.map((each) => each.durationMs)))}">`];
  for (const scorecard of scorecards) {
    const name = scorecards.length > 1 ? `${scorecard.suite} (${scorecard.configuration})` : scorecard.suite;
    lines.push(`  <testsuite name="${escape(name)}" tests="${scorecard.totals.cases}" failures="${scorecard.totals.cases - scorecard.totals.passedCases}" errors="0" skipped="0" time="${seconds(scorecard.durationMs)}">`);
    lines.push(`    <properties><property name="configuration" value="${escape(scorecard.configuration)}"/></properties>`);
    for (const each of scorecard.cases) {
      const time = each.runs.reduce((sum, run) => sum + run.durationMs, 0);
      lines.push(`    <testcase classname="${escape(scorecard.suite)}" name="${escape(each.name)}" time="${seconds(time)}">`);
      if (!each.passed) {
        const details = each.runs.filter((run) => !run.passed).flatMap((run) => [`run ${run.run}:`, ...failureLines(run).map((line) => `  ${line}`), ...(traceReference(run) ? [`  trace: ${traceReference(run)}`] : [])]);
        const first = each.runs.find((run) => !run.passed);
        const message = `${rateText(each)} runs passed (needs ${Math.round(each.requiredRate * 100)}%)${first ? `: ${failureLines(first)[0] ?? 'failed'}` : ''}`;
        lines.push(`      <failure message="${escape(message)}" type="evaluation">${escape(details.join('\n'))}</failure>`);
      }
      lines.push(`      <system-out>${escape(`${rateText(each)} runs passed`)}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n') + '\n';
}

/** XML text and attribute values; the characters XML 1.0 cannot hold at all (most control characters) are dropped. */
function escape(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
