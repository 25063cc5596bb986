/**
 * Progress while a suite runs, on stderr: a bar redrawn in place on a terminal, and on anything
 * else (a CI log, a pipe) one plain line per finished run, which reads well where "\r" does not.
 */
import type { CaseRun } from './run-case.ts';
import { failureLines } from './scorecard.ts';

const BAR_WIDTH = 30;

export interface Progress {
  runDone(run: CaseRun): void;
  /** Ends the bar's line, so what follows starts on its own. */
  finish(): void;
}

export interface ProgressOptions {
  total: number;
  /** Which configuration runs, when two are compared. */
  label?: string;
  write(text: string): void;
  terminal: boolean;
}

export function createProgress({ total, label, write, terminal }: ProgressOptions): Progress {
  let done = 0;
  let failed = 0;
  const prefix = label ? `${label}: ` : '';
  const draw = (last?: string) => {
    const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
    write(`\r\x1b[2K${prefix}[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total}  passed ${done - failed}  failed ${failed}${last ? `  ${last}` : ''}`);
  };
  if (terminal) draw();
  return {
    runDone(run) {
      done += 1;
      if (!run.passed) failed += 1;
      if (terminal) {
        draw(run.caseName);
        return;
      }
      const reason = run.passed ? '' : `: ${failureLines(run)[0] ?? 'failed'}`;
      write(`${prefix}${run.passed ? 'PASS' : 'FAIL'} ${run.caseName} (run ${run.run}) [${done}/${total}]${reason}\n`);
    },
    finish() {
      if (terminal) write('\n');
    },
  };
}
