/**
 * How a critique ends: with a verdict line the strategy reads. The operator's critiquePrompt says
 * what to check; this protocol is added after it by the code, so a prompt of one's own cannot
 * break the loop's stop rule.
 *
 *   OK      nothing to change            Self-Refine stops; a Reflexion trial succeeded
 *   REVISE  answers, but can be better   Self-Refine revises; a Reflexion trial succeeded
 *   FAIL    does not answer the question Self-Refine revises; a Reflexion trial failed
 *
 * A critique without a readable verdict is taken as REVISE: it has something to say, and the
 * revisions are bounded anyway.
 */

export type Verdict = 'ok' | 'revise' | 'fail';

export const VERDICT_PROTOCOL = `End your review with one line, exactly one of:
VERDICT: OK (the answer needs no change)
VERDICT: REVISE (the answer answers the question, but should be corrected or improved)
VERDICT: FAIL (the answer does not answer the question)`;

export function verdictOf(critique: string): Verdict {
  const found = [...critique.matchAll(/VERDICT\s*[:：]\s*\**\s*(OK|REVISE|FAIL)\b/gi)].at(-1);
  if (!found) return 'revise';
  return found[1]!.toLowerCase() as Verdict;
}
