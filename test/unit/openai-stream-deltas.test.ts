/**
 * The deltas a watcher sees: joined, the text deltas are the reply's content exactly, whatever the
 * way the content was cut into pieces.
 */
import { describe, expect, it } from 'vitest';
import { normalizeCompletion } from '../../lib/adapters/openai/normalize.ts';
import { createDeltaSplitter } from '../../lib/adapters/openai/stream-deltas.ts';
import { withTextToolCalls } from '../../lib/adapters/openai/text-tool-calls.ts';
import type { ModelDelta } from '../../lib/core/ports/model.ts';
import { getWeather } from '../support/original-tools.ts';

/** The content cut into every piece size from 1 to 8 characters, fed in, then finished as the adapter does. */
function deltasFor(content: string, pieceLength: number, holdTextToolCalls = false): { deltas: ModelDelta[]; reply: ReturnType<typeof normalizeCompletion> } {
  const splitter = createDeltaSplitter({ holdTextToolCalls });
  const deltas: ModelDelta[] = [];
  const characters = Array.from(content);
  for (let start = 0; start < characters.length; start += pieceLength) {
    deltas.push(...splitter.push({ field: 'content', text: characters.slice(start, start + pieceLength).join('') }));
  }
  const normalized = normalizeCompletion({ choices: [{ message: { role: 'assistant', content } }] });
  const reply = holdTextToolCalls ? withTextToolCalls(normalized, [getWeather]) : normalized;
  deltas.push(...splitter.finish(reply.content));
  return { deltas, reply };
}

const joined = (deltas: ModelDelta[], kind: ModelDelta['kind']) => deltas.filter((delta) => delta.kind === kind).map((delta) => delta.text).join('');
const PIECE_LENGTHS = [1, 2, 3, 5, 8];
const HERMES_CALL = '<tool_call>\n{"name": "getWeather", "arguments": {"city": "上海"}}\n</tool_call>';

describe('createDeltaSplitter', () => {
  it.each([
    ['plain text', '上海今天多云，22°C。', false],
    ['leading whitespace, kept as the content keeps it', '\n\n  Hello', false],
    ['whitespace only (no content)', '\n\n  ', false],
    ['a <think> block, then the answer', '<think>\nThe user asks.\n</think>\n\n上海多云。', false],
    ['whitespace, then a <think> block and nothing else', '  <think>plan</think>\n\n', false],
    ['a <think> block that never closes (read as text)', '<think>cut off by max_tokens', false],
    ['text that only begins like <think>', '<thin ice>', false],
    ['a lone "<th"', '<th', false],
    ['a </think> inside the answer, after the block', '<think>a</think>b </think> c', false],
    ['a call written as text, option on', HERMES_CALL, true],
    ['a call after a <think> block, option on', `<think>weather</think>\n${HERMES_CALL}`, true],
    ['JSON that is not a call, option on', '{"note": "no call"}', true],
    ['prose quoting a call, option on', `Write ${HERMES_CALL} to call it.`, true],
    ['text starting with "<" that is no call, option on', '<b>bold</b> move', true],
    ['a fenced block, option on', '```json\n{"a": 1}\n```', true],
    ['a call written as text, option off', HERMES_CALL, false],
  ])('gives text deltas that join to the reply’s content: %s', (_label, content, hold) => {
    for (const pieceLength of PIECE_LENGTHS) {
      const { deltas, reply } = deltasFor(content, pieceLength, hold);

      expect(joined(deltas, 'text')).toBe(reply.content ?? '');
      // (A block that never closes was shown as reasoning while it was written: text to the reply.)
      if (content.includes('</think>')) expect(joined(deltas, 'reasoning').trim()).toBe(reply.reasoning?.text ?? '');
      expect(deltas.every((delta) => delta.text !== '')).toBe(true);
    }
  });

  it('passes plain text on at once, piece by piece', () => {
    const splitter = createDeltaSplitter({ holdTextToolCalls: true });

    expect(splitter.push({ field: 'content', text: '上海' })).toEqual([{ kind: 'text', text: '上海' }]);
    expect(splitter.push({ field: 'content', text: '多云' })).toEqual([{ kind: 'text', text: '多云' }]);
  });

  it('streams a <think> block as reasoning while it is written, holding back only a possible "</think>"', () => {
    const splitter = createDeltaSplitter({ holdTextToolCalls: false });

    expect(splitter.push({ field: 'content', text: '<think>The user' })).toEqual([{ kind: 'reasoning', text: 'The user' }]);
    expect(splitter.push({ field: 'content', text: ' asks.</th' })).toEqual([{ kind: 'reasoning', text: ' asks.' }]);
    expect(splitter.push({ field: 'content', text: 'ink>\n\nSun' })).toEqual([{ kind: 'text', text: 'Sun' }]);
  });

  it('holds a possible call written as text until the end, and gives it out there when it stayed text', () => {
    const splitter = createDeltaSplitter({ holdTextToolCalls: true });

    expect(splitter.push({ field: 'content', text: '{"note":' })).toEqual([]);
    expect(splitter.push({ field: 'content', text: ' 1}' })).toEqual([]);
    expect(splitter.finish('{"note": 1}')).toEqual([{ kind: 'text', text: '{"note": 1}' }]);
  });

  it('hands reasoning fields on as reasoning, whatever the content does', () => {
    const splitter = createDeltaSplitter({ holdTextToolCalls: true });

    expect(splitter.push({ field: 'reasoning_content', text: 'First' })).toEqual([{ kind: 'reasoning', text: 'First' }]);
    expect(splitter.push({ field: 'reasoning', text: ' then' })).toEqual([{ kind: 'reasoning', text: ' then' }]);
  });
});
