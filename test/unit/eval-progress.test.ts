import { describe, expect, it } from 'vitest';
import { createProgress } from '../../lib/evals/progress.ts';
import type { CaseRun } from '../../lib/evals/run-case.ts';

const run = (caseName: string, passed: boolean): CaseRun => ({
  caseName,
  run: 1,
  passed,
  durationMs: 5,
  turns: [{ question: 'q', toolCalls: [], failures: passed ? [] : [{ kind: 'reply', message: 'expected the answer to contain "x"' }] }],
});

describe('progress while a suite runs', () => {
  it('redraws one bar in place on a terminal, and ends its line when done', () => {
    let written = '';
    const progress = createProgress({ total: 2, write: (text) => void (written += text), terminal: true });
    progress.runDone(run('weather', true));
    progress.runDone(run('news', false));
    progress.finish();
    expect(written.split('\r\x1b[2K')).toEqual([
      '',
      `[${'-'.repeat(30)}] 0/2  passed 0  failed 0`,
      `[${'#'.repeat(15)}${'-'.repeat(15)}] 1/2  passed 1  failed 0  weather`,
      `[${'#'.repeat(30)}] 2/2  passed 1  failed 1  news\n`,
    ]);
  });

  it('writes a plain line per run elsewhere (a CI log), with the first reason of a failure', () => {
    let written = '';
    const progress = createProgress({ total: 2, label: 'B', write: (text) => void (written += text), terminal: false });
    progress.runDone(run('weather', true));
    progress.runDone(run('news', false));
    progress.finish();
    expect(written).toBe('B: PASS weather (run 1) [1/2]\nB: FAIL news (run 1) [2/2]: [reply] expected the answer to contain "x"\n');
  });
});
