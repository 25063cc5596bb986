import type { ResponseFormat } from '../../core/response-format.ts';
import { answerCheck, type AnswerCheck } from '../loop/answer-check.ts';
import type { ExtensionRunner } from '../extension-api/extension-runner.ts';

/** Where a paused turn keeps its responseFormat in the conversation's state. */
const FORMAT_STATE = 'responseFormat';

/**
 * A turn that asked for a structured answer and paused (approval, a question) is resumed by a
 * request that only carries decisions: the format waits with the turn in the conversation's state,
 * so the resumed turn's answer is checked too. Any other end clears it: later turns never inherit it.
 */
export function keepFormatWhilePaused(runner: ExtensionRunner, check: AnswerCheck | undefined, paused: boolean): void {
  if (check && paused) {
    runner.stateOf(FORMAT_STATE).format = check.format;
    return;
  }
  if (runner.state()[FORMAT_STATE] !== undefined) delete runner.stateOf(FORMAT_STATE).format;
}

/** The check of the format a paused turn kept, for the request that resumes it. */
export function carriedAnswerCheck(runner: ExtensionRunner): AnswerCheck | undefined {
  if (runner.state()[FORMAT_STATE] === undefined) return undefined;
  const format = runner.stateOf(FORMAT_STATE).format as ResponseFormat | undefined;
  return format ? answerCheck(format) : undefined;
}
