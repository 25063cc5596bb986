import type { AnswerCheck } from './answer-check.ts';
import type { LoopOutcome } from './stop-rules.ts';

/**
 * The guarantee at the turn's end, whatever strategy ran: a completed turn that asked for a
 * structured answer carries its `output`. A strategy whose last phase did not check the answer
 * (a reflection revision) gets it checked here, with no round left to correct it.
 */
export function checkedOutcome(outcome: LoopOutcome, check: AnswerCheck | undefined): LoopOutcome {
  if (!check || outcome.kind !== 'completed' || 'output' in outcome) return outcome;
  const verdict = check.check(outcome.reply);
  return verdict.ok ? { ...outcome, output: verdict.output } : { kind: 'stopped', reason: 'invalid_output', reply: outcome.reply, problems: verdict.problems };
}
