import type { HistoryMessage, Message } from '../../core/messages.ts';

/**
 * A round's request repeats the turn's own messages so far (its question and everything appended),
 * which the turn's item stores beside the trace, written with it in every record: the trace keeps
 * their count and where they go, not copies of them (as it does for the earlier turns' messages,
 * history.ts). Reading the trace puts them back from the same item.
 *
 *   request   [system, ...history, question, assistant₁, tool₁, ..., assistantₖ, toolₖ]
 *   pooled    [system]                      own: { at: 1, messages: 2k + 1 }
 *
 * Kept by reference only while what was referenced stays what the turn stores: a strategy that
 * moves messages out of the turn's draft (reflection's trials, plan-execute's tasks) or a turn that
 * pauses gets copies instead (extension.ts).
 */

/**
 * Where all of `sequence` sits in `messages`, in order and as the very objects, at or after `from`:
 * the turn's own messages here, the earlier turns' (history.ts) too. A copy or a change (an
 * extension's) is not found, and the request is then recorded in full.
 */
export function positionOf(messages: readonly Message[], sequence: readonly HistoryMessage[], from = 0): number | undefined {
  if (sequence.length === 0) return undefined;
  const at = messages.indexOf(sequence[0]!, from);
  if (at === -1 || at + sequence.length > messages.length) return undefined;
  for (let index = 1; index < sequence.length; index++) if (messages[at + index] !== sequence[index]) return undefined;
  return at;
}

/** Whether `messages` starts with `prefix`, object by object. */
export function startsWith(messages: readonly HistoryMessage[], prefix: readonly HistoryMessage[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let index = 0; index < prefix.length; index++) if (messages[index] !== prefix[index]) return false;
  return true;
}
