/**
 * The text a model streams → the deltas a watcher sees, so that the text deltas of a reply, joined,
 * are exactly the reply's content (null counting as ""), as normalize.ts will read it:
 *
 *   reasoning_content / reasoning        → reasoning deltas, as they arrive
 *   content  "  <think>…</think>  text"  → the think block as reasoning, the whitespace around it
 *                                          dropped, then text (vLLM without a reasoning parser)
 *   content  "   " only                  → nothing (the reply's content is null)
 *   content  "<tool_call>…", "{…", "```…", "<function=…", "<|python_tag|>…"
 *            when tool calls written as text are read (model.textToolCalls)
 *                                        → held until the end: text-tool-calls.ts may turn the
 *                                          whole text into calls, and then it was never text
 *
 * Text that may still become one of these (a lone "<th", leading spaces) waits for the next piece.
 * Pure: the adapter feeds it pieces and the final reply.
 */
import type { ModelDelta } from '../../core/ports/model.ts';
import type { StreamedText } from './stream-accumulator.ts';

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/** How a reply made only of calls written as text can start (text-tool-calls.ts). */
const TEXT_CALL_STARTS = ['<tool_call>', '<function=', '<|python_tag|>', '```', '{'];

interface DeltaSplitter {
  /** The deltas a streamed piece of text gives now (possibly none: held or undecided). */
  push(piece: StreamedText): ModelDelta[];
  /** What was held back, once the reply is known (`content` as normalized). */
  finish(content: string | null): ModelDelta[];
}

type Phase =
  | 'start' // nothing but whitespace yet, or the beginning of "<think>"
  | 'thinking' // inside a leading <think> block
  | 'after-think' // the whitespace after </think>
  | 'deciding' // text that may be a call written as text
  | 'text' // plain text: passed on as it comes
  | 'held'; // a call written as text, perhaps: kept until the end

export function createDeltaSplitter(options: { holdTextToolCalls: boolean }): DeltaSplitter {
  let phase: Phase = 'start';
  /** Content received but not yet given out, in the current phase. */
  let pending = '';
  /** The whole content, for a think block that never closes. */
  let allContent = '';

  const text = (value: string): ModelDelta[] => (value === '' ? [] : [{ kind: 'text', text: value }]);
  const reasoning = (value: string): ModelDelta[] => (value === '' ? [] : [{ kind: 'reasoning', text: value }]);

  function advance(): ModelDelta[] {
    switch (phase) {
      case 'start': {
        const trimmed = pending.trimStart();
        if (trimmed === '' || (trimmed.length < THINK_OPEN.length && THINK_OPEN.startsWith(trimmed))) return [];
        if (trimmed.startsWith(THINK_OPEN)) {
          phase = 'thinking';
          pending = trimmed.slice(THINK_OPEN.length);
          return advance();
        }
        // Without a think block the content is kept as sent, leading whitespace included.
        phase = 'deciding';
        return advance();
      }
      case 'thinking': {
        const end = pending.indexOf(THINK_CLOSE);
        if (end >= 0) {
          const thought = pending.slice(0, end);
          phase = 'after-think';
          pending = pending.slice(end + THINK_CLOSE.length);
          return [...reasoning(thought), ...advance()];
        }
        // Keep back what may be the beginning of "</think>".
        const keep = partialSuffix(pending, THINK_CLOSE);
        const thought = pending.slice(0, pending.length - keep);
        pending = pending.slice(pending.length - keep);
        return reasoning(thought);
      }
      case 'after-think': {
        pending = pending.trimStart();
        if (pending === '') return [];
        phase = 'deciding';
        return advance();
      }
      case 'deciding': {
        if (!options.holdTextToolCalls) {
          phase = 'text';
          return advance();
        }
        const trimmed = pending.trimStart();
        if (trimmed === '') return [];
        if (TEXT_CALL_STARTS.some((start) => trimmed.startsWith(start))) {
          phase = 'held';
          return [];
        }
        if (TEXT_CALL_STARTS.some((start) => start.startsWith(trimmed))) return [];
        phase = 'text';
        return advance();
      }
      case 'text': {
        const out = pending;
        pending = '';
        return text(out);
      }
      case 'held':
        return [];
    }
  }

  return {
    push(piece: StreamedText): ModelDelta[] {
      if (piece.field !== 'content') return reasoning(piece.text);
      allContent += piece.text;
      pending += piece.text;
      return advance();
    },
    finish(content: string | null): ModelDelta[] {
      const rest = pending;
      pending = '';
      switch (phase) {
        case 'start':
          // "<th" is text; whitespace alone is no content.
          return rest.trim() === '' ? [] : text(rest);
        case 'thinking':
          // normalize.ts reads an unclosed <think> as text: so must the deltas, late as it is.
          return content === null ? [] : text(allContent);
        case 'after-think':
          return [];
        case 'deciding':
        case 'held':
          // Text the reply kept (not turned into calls) is given out whole.
          return content === null || rest.trim() === '' ? [] : text(rest);
        case 'text':
          return text(rest);
      }
    },
  };
}

/** The length of the longest end of `value` that begins `marker` (a marker split across pieces). */
function partialSuffix(value: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, value.length); length > 0; length -= 1) {
    if (marker.startsWith(value.slice(value.length - length))) return length;
  }
  return 0;
}
