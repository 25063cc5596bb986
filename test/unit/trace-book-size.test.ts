/**
 * The trace keeps its size as it grows (TraceBook.size) rather than serializing itself after every
 * model call to compare with trace.maxBytes: the kept size must be the snapshot's JSON size exactly,
 * or the trace would be cut too late (or for nothing).
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../lib/core/messages.ts';
import { emptyTrace, TraceBook } from '../../lib/extensions/trace/book.ts';
import { fitTrace, sizeOf } from '../../lib/extensions/trace/fit.ts';

const round = (number: number, text: string) => ({
  round: number,
  startedAt: new Date(0).toISOString(),
  durationMs: 3,
  request: {
    messages: [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: text }],
    tools: [{ type: 'function' as const, function: { name: 'add', description: 'adds — «numbers» 🧮', parameters: { type: 'object' } } }],
    ...(number > 1 ? { history: 1 } : {}),
  },
  response: { role: 'assistant' as const, content: `answer ${number}: ${text}` },
  usage: number % 2 === 0 ? undefined : { promptTokens: 10, completionTokens: 2 },
});

describe('the size a trace book keeps', () => {
  it('is the JSON size of its snapshot after every change, in UTF-8 bytes', () => {
    const book = new TraceBook(emptyTrace(3, 'full'));
    expect(book.size()).toBe(sizeOf(book.snapshot()));

    for (const text of ['first', 'zweite Frage — größer', '三番目', 'first']) {
      book.addRound(round(book.nextRound(), text));
      expect(book.size()).toBe(sizeOf(book.snapshot()));
      book.addToolRun({ id: `call_${text}`, name: 'add', ok: true, durationMs: 1 });
      expect(book.size()).toBe(sizeOf(book.snapshot()));
    }
    book.trace.history = { messages: 4, digest: 'abc' };
    expect(book.size()).toBe(sizeOf(book.snapshot()));
  });

  it('stays exact over many calls recorded as the loop records them: the repeated messages by position, past ten calls', () => {
    const book = new TraceBook(emptyTrace(1, 'full'));
    const tools = [{ name: 'add', description: 'adds — «numbers»', parameters: { type: 'object' }, server: 'bench', originalName: 'add' }];
    // The loop sends the same message objects again and appends to them; the system prompt is made anew each round.
    const messages: Message[] = [{ role: 'user', content: 'Add up a few numbers — ✓' }];
    for (let call = 1; call <= 12; call++) {
      const sent: Message[] = [{ role: 'system', content: 'Be brief.' }, ...messages];
      const request = { messages: book.requestMessages(sent, 'full'), tools: book.traceTools(tools, 'full') };
      book.addCall({ round: book.nextRound(), startedAt: new Date(call * 1000).toISOString(), durationMs: call, response: { role: 'assistant', content: `step ${call} 🧮` } }, request);
      expect(book.size()).toBe(sizeOf(book.snapshot()));
      book.addToolRun({ id: `call_${call}`, name: 'add', ok: true, durationMs: 1 });
      messages.push(
        { role: 'assistant', content: null, toolCalls: [{ id: `call_${call}`, name: 'add', arguments: JSON.stringify({ a: call, b: call }) }] },
        { role: 'tool', toolCallId: `call_${call}`, name: 'add', content: String(call * 2) },
      );
    }
    expect(book.snapshot().calls).toBe(12);
    expect(book.size()).toBe(sizeOf(book.snapshot()));
  });

  it('goes on from a trace taken up again, trimmed or not', () => {
    const earlier = new TraceBook(emptyTrace(2, 'full'));
    earlier.addRound(round(earlier.nextRound(), 'a question ✓'));
    earlier.addToolRun({ id: 'call_1', name: 'add', ok: false, durationMs: 2 });
    const trimmed = fitTrace(earlier.snapshot(), 700);
    expect(trimmed).not.toBe(earlier.snapshot());

    for (const base of [earlier.snapshot(), trimmed]) {
      const book = new TraceBook(base);
      expect(book.size()).toBe(sizeOf(book.snapshot()));
      book.addRound(round(book.nextRound(), 'after the pause'));
      expect(book.size()).toBe(sizeOf(book.snapshot()));
    }
  });

  it('decides the fit as measuring the whole trace would', () => {
    const book = new TraceBook(emptyTrace(1, 'full'));
    book.addRound(round(book.nextRound(), 'x'.repeat(2_000)));
    const snapshot = book.snapshot();
    const size = book.size();

    expect(fitTrace(snapshot, size, size)).toBe(snapshot);
    const cut = fitTrace(snapshot, size - 1, size);
    expect(cut).not.toBe(snapshot);
    expect(sizeOf(cut)).toBeLessThanOrEqual(size - 1);
  });
});
