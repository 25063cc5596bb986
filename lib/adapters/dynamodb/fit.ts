import type { HistoryMessage } from '../../core/messages.ts';
import { capForBudget } from './water-fill.ts';

/**
 * Fitting a turn under DynamoDB's 400 KB item limit. Only the STORED copy shrinks (the caller
 * already got the full answer): the longest tool outputs are cut, keeping their head and saying so.
 * Tool call ids, message roles and order never change, so the history invariant still holds.
 */

/** DynamoDB refuses items over 400 KB; this target leaves room for the size estimate's slack. */
export const STORED_ITEM_TARGET_BYTES = 350 * 1024;

/** A fitting candidate this close under the limit is kept: coming closer is not worth another gzip. */
const CLOSE_ENOUGH = 0.01;

/** Measurements allowed after the first two (the turn as it is, every output cut). */
const MAX_REFINEMENTS = 6;

type FitResult =
  | { fits: true; messages: HistoryMessage[]; truncatedToolMessages: number }
  | { fits: false; smallestBytes: number };

/** A candidate for storage: every tool output cut to one cap. */
interface Candidate {
  messages: HistoryMessage[];
  /** Characters of the original tool outputs kept in all. */
  kept: number;
  truncatedToolMessages: number;
}

/**
 * `measure` returns the stored item's size for a candidate list of messages. It gzips the whole
 * turn, so each call costs time in the turn's size; this calls it at most 2 + MAX_REFINEMENTS
 * times, which keeps fitting linear. Returns the messages unchanged when they fit; else a copy
 * whose longer tool outputs are cut to one common cap, shorter ones kept whole; `fits: false`
 * when even cutting every output to nothing would not fit.
 *
 * Bytes grow about linearly with the characters kept (gzip's ratio is much the same along a
 * text), so two measurements bracket the answer: one that fits (at first: every output cut) and
 * one that does not (at first: nothing cut). Each refinement draws the line between them, tries
 * the characters where it crosses an aim just under the limit, measures, and moves the end on that
 * side. Uniform outputs need one refinement; uneven compression and the markers need a few more.
 * If none fits closely enough, the best fitting candidate is kept, at worst every output cut.
 *
 *   bytes │             ● over
 *   limit ┤- - - - - -╱- -
 *     aim ┤- - - - - ○ - -  try here, measure, move `fitting` or `over` to it
 *         │  ●─────╱
 *         │  fitting
 *         └────────────────── characters kept
 */
export function fitMessagesForStorage(
  messages: readonly HistoryMessage[],
  measure: (messages: HistoryMessage[]) => number,
  limitBytes = STORED_ITEM_TARGET_BYTES,
): FitResult {
  const whole = [...messages];
  const wholeBytes = measure(whole);
  if (wholeBytes <= limitBytes) return { fits: true, messages: whole, truncatedToolMessages: 0 };

  const smallest = cutToCap(messages, 0);
  const smallestBytes = measure(smallest.messages);
  if (smallestBytes > limitBytes) return { fits: false, smallestBytes };

  const ascendingLengths = messages.flatMap((message) => (message.role === 'tool' ? [message.content.length] : [])).sort((a, b) => a - b);
  const aimBytes = limitBytes * (1 - CLOSE_ENOUGH / 2);
  // The two ends of the bracket, with their bytes over the aim: below zero at `fitting`, above at `over`.
  let fitting = { kept: smallest.kept, bytes: smallestBytes, excess: smallestBytes - aimBytes, candidate: smallest };
  let over = { kept: ascendingLengths.reduce((sum, length) => sum + length, 0), excess: wholeBytes - aimBytes };
  let movedLast: 'fitting' | 'over' | undefined;
  for (let refinement = 0; refinement < MAX_REFINEMENTS && fitting.bytes < limitBytes * (1 - CLOSE_ENOUGH); refinement++) {
    // Where the line between the two ends crosses the aim.
    const budget = fitting.kept + Math.floor(((over.kept - fitting.kept) * -fitting.excess) / (over.excess - fitting.excess));
    const candidate = cutToCap(messages, capForBudget(ascendingLengths, Math.min(budget, over.kept - 1)));
    // No cap keeps more than `fitting` and less than `over`: the bracket is as narrow as it gets.
    if (candidate.kept <= fitting.kept || candidate.kept >= over.kept) break;
    const bytes = measure(candidate.messages);
    // When the same end moves twice running, the other end's excess is halved (the Illinois rule):
    // on a curved measure, such as outputs whose head gzips worse than their tail, the line would
    // otherwise creep towards the answer from one side in ever smaller steps.
    if (bytes <= limitBytes) {
      if (movedLast === 'fitting') over.excess /= 2;
      fitting = { kept: candidate.kept, bytes, excess: bytes - aimBytes, candidate };
      movedLast = 'fitting';
    } else {
      if (movedLast === 'over') fitting.excess /= 2;
      over = { kept: candidate.kept, excess: bytes - aimBytes };
      movedLast = 'over';
    }
  }
  const { messages: fitted, truncatedToolMessages } = fitting.candidate;
  return { fits: true, messages: fitted, truncatedToolMessages };
}

/** Cuts every tool output longer than `cap`, unless its marker would make it no shorter. */
function cutToCap(messages: readonly HistoryMessage[], cap: number): Candidate {
  let kept = 0;
  let truncatedToolMessages = 0;
  const cut = messages.map((message) => {
    if (message.role !== 'tool') return message;
    const truncated = message.content.length > cap ? truncateToolMessage(message, cap) : message;
    if (truncated.content.length >= message.content.length) {
      kept += message.content.length;
      return message;
    }
    kept += cap;
    truncatedToolMessages += 1;
    return truncated;
  });
  return { messages: cut, kept, truncatedToolMessages };
}

/** Keeps the first `keepCharacters` of the content and appends a marker saying how much was kept. */
export function truncateToolMessage<T extends { content: string }>(message: T, keepCharacters: number): T {
  const total = message.content.length;
  let end = Math.min(keepCharacters, total);
  // Never split a UTF-16 surrogate pair: half a character is not valid text.
  if (end > 0 && end < total && isHighSurrogate(message.content.charCodeAt(end - 1))) end -= 1;
  const marker = `\n…[truncated for storage: kept ${end} of ${total} characters]`;
  return { ...message, content: message.content.slice(0, end) + marker };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
