import type { HistoryMessage, ToolMessage } from '../../core/messages.ts';

/**
 * Fitting a turn under DynamoDB's 400 KB item limit. Only the STORED copy shrinks (the caller
 * already got the full answer): the longest tool outputs are cut, keeping their head and saying so.
 * Tool call ids, message roles and order never change, so the history invariant still holds.
 */

/** DynamoDB refuses items over 400 KB; this target leaves room for the size estimate's slack. */
export const STORED_ITEM_TARGET_BYTES = 350 * 1024;

export type FitResult =
  | { fits: true; messages: HistoryMessage[]; truncatedToolMessages: number }
  | { fits: false; smallestBytes: number };

/**
 * `measure` returns the stored item's size for a candidate list of messages. Returns the messages
 * unchanged when they fit, else a copy whose longest tool outputs were halved, one at a time, until
 * the item fits; `fits: false` when even empty tool outputs would not fit.
 */
export function fitMessagesForStorage(
  messages: readonly HistoryMessage[],
  measure: (messages: HistoryMessage[]) => number,
  limitBytes = STORED_ITEM_TARGET_BYTES,
): FitResult {
  const candidate = [...messages];
  if (measure(candidate) <= limitBytes) return { fits: true, messages: candidate, truncatedToolMessages: 0 };

  // One measurement with every tool output cut to nothing tells at once whether cutting can help.
  const smallest = messages.map((message) => (message.role === 'tool' ? truncateToolMessage(message, 0) : message));
  const smallestBytes = measure(smallest);
  if (smallestBytes > limitBytes) return { fits: false, smallestBytes };

  // Characters kept of each tool message's original content (undefined for other roles).
  const kept = messages.map((message) => (message.role === 'tool' ? message.content.length : undefined));
  const truncated = new Set<number>();
  for (let index = indexOfLongest(kept); index >= 0; index = indexOfLongest(kept)) {
    const original = messages[index] as ToolMessage;
    const keep = Math.floor((kept[index] ?? 0) / 2);
    kept[index] = keep;
    candidate[index] = truncateToolMessage(original, keep);
    truncated.add(index);
    if (measure(candidate) <= limitBytes) return { fits: true, messages: candidate, truncatedToolMessages: truncated.size };
  }
  // Every tool output is cut to nothing now: the candidate is `smallest`, which was measured to fit.
  return { fits: true, messages: smallest, truncatedToolMessages: truncated.size };
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

function indexOfLongest(kept: readonly (number | undefined)[]): number {
  let index = -1;
  let longest = 0;
  kept.forEach((length, position) => {
    if (length !== undefined && length > longest) {
      longest = length;
      index = position;
    }
  });
  return index;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
