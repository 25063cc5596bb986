import type { HistoryMessage } from '../../core/messages.ts';
import type { ReflectionStep } from '../../agent/loop/loop-events.ts';
import type { Answer, OwnCalls } from './own-calls.ts';
import { judgePick, voteByAgreement } from './vote.ts';

interface SampleSettings {
  samples: number;
  judgePrompt?: string | undefined;
}

/**
 * Self-consistency: the request that gave `first` (a round without tool calls) sent k-1 more times
 * side by side, within the rounds left; the answer most answers agree with is kept (vote.ts), or,
 * with a judge prompt, the one a further call picks (the vote when it names none). `step`: what to
 * report, when there was more than one answer to choose from.
 */
export async function sampledAnswer(first: Answer, request: readonly HistoryMessage[], calls: OwnCalls, settings: SampleSettings): Promise<{ answer: Answer; step?: ReflectionStep }> {
  const extra = Math.min(settings.samples - 1, calls.roundsLeft());
  if (extra <= 0) return { answer: first };
  const answers = [first, ...(await calls.repeat(request, extra))];
  if (answers.length === 1) return { answer: first };
  const vote = voteByAgreement(answers.map((answer) => answer.text));
  let chosen = vote.chosen;
  let by: 'vote' | 'judge' = 'vote';
  if (settings.judgePrompt && calls.roundsLeft() >= 1) {
    const listed = answers.map((answer, index) => `[${index + 1}]\n${answer.text}`).join('\n\n');
    const judged = await calls.ask([{ role: 'user', content: `${settings.judgePrompt}\n\nThe answers:\n\n${listed}\n\nReply with the number of the best answer only.` }]);
    const pick = judged === undefined ? undefined : judgePick(judged.text, answers.length);
    if (pick !== undefined) {
      chosen = pick;
      by = 'judge';
    }
  }
  return { answer: answers[chosen]!, step: { kind: 'samples', answers: answers.map((answer) => answer.text), chosen, by, scores: vote.scores } };
}
