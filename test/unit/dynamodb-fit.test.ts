import { describe, expect, it } from 'vitest';
import { fitMessagesForStorage, STORED_ITEM_TARGET_BYTES, truncateToolMessage } from '../../lib/adapters/dynamodb/fit.ts';
import { capForBudget } from '../../lib/adapters/dynamodb/water-fill.ts';
import { historyViolations } from '../../lib/core/history.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';
import { incompressibleText, storedItemBytes, toolMessage, turnWithOutputs } from '../support/turn-messages.ts';

/** A measure that is easy to reason about: the characters of all contents. */
const contentCharacters = (messages: HistoryMessage[]) =>
  messages.reduce((sum, message) => sum + (message.content?.length ?? 0), 0);

/** Wraps a measure to count its calls: each call gzips the whole turn, so their number is the cost. */
function counted(measure: (messages: HistoryMessage[]) => number) {
  const counter = { calls: 0, measure: (messages: HistoryMessage[]) => (counter.calls += 1, measure(messages)) };
  return counter;
}

/** Role and tool call id of every message: what fitting must never change. */
const shape = (messages: readonly HistoryMessage[]) =>
  messages.map((message) => [message.role, message.role === 'tool' ? message.toolCallId : '']);

const MARKER = /\n…\[truncated for storage: kept (\d+) of (\d+) characters\]$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** At most the two bracketing measurements and six refinements, whatever the turn's size. */
const MAX_MEASUREMENTS = 8;

describe('fitMessagesForStorage', () => {
  it('returns the messages unchanged when the item already fits, measuring once', () => {
    // Prepare
    const messages = turnWithOutputs('a'.repeat(100));
    const counter = counted(contentCharacters);
    // Act
    const result = fitMessagesForStorage(messages, counter.measure, 1_000);
    // Assess
    expect(result).toEqual({ fits: true, messages, truncatedToolMessages: 0 });
    expect(counter.calls).toBe(1);
  });

  it('cuts the long tool output, keeping its head and saying how much it kept, and keeps the short one whole', () => {
    const long = 'x'.repeat(1_000);
    const short = 'y'.repeat(300);
    const result = fitMessagesForStorage(turnWithOutputs(long, short), contentCharacters, 1_000);
    expect(result).toMatchObject({ fits: true, truncatedToolMessages: 1 });
    const messages = result.fits ? result.messages : [];
    const [, kept, total] = MARKER.exec(messages[2]?.content ?? '') ?? [];
    expect(total).toBe('1000');
    expect(messages[2]?.content).toBe(`${'x'.repeat(Number(kept))}\n…[truncated for storage: kept ${kept} of 1000 characters]`);
    expect(messages[3]?.content).toBe(short);
    // Within 1% of the limit: the long output keeps what room there is, not just half.
    expect(contentCharacters(messages)).toBeGreaterThan(990);
    expect(contentCharacters(messages)).toBeLessThanOrEqual(1_000);
  });

  it('keeps roles, order and tool call ids, so the history invariant still holds', () => {
    const original = turnWithOutputs('a'.repeat(5_000), 'b'.repeat(4_000), 'c'.repeat(10));
    const result = fitMessagesForStorage(original, (messages) => JSON.stringify(messages).length, 2_000);
    expect(result.fits).toBe(true);
    const messages = result.fits ? result.messages : [];
    expect(shape(messages)).toEqual(shape(original));
    expect(historyViolations(messages)).toEqual([]);
    expect(JSON.stringify(messages).length).toBeLessThanOrEqual(2_000);
  });

  it('fits 240 incompressible 16,000-character outputs under the limit with a handful of gzips', () => {
    // Prepare
    const original = turnWithOutputs(...Array.from({ length: 240 }, () => incompressibleText(16_000)));
    const counter = counted(storedItemBytes);
    // Act
    const result = fitMessagesForStorage(original, counter.measure);
    // Assess
    expect(result).toMatchObject({ fits: true, truncatedToolMessages: 240 });
    const messages = result.fits ? result.messages : [];
    expect(storedItemBytes(messages)).toBeLessThanOrEqual(STORED_ITEM_TARGET_BYTES);
    expect(shape(messages)).toEqual(shape(original));
    expect(historyViolations(messages)).toEqual([]);
    messages.forEach((message, index) => {
      if (message.role !== 'tool') return expect(message).toEqual(original[index]);
      const [, kept] = MARKER.exec(message.content) ?? [];
      expect(kept).toBeDefined();
      expect(message.content.slice(0, Number(kept))).toBe(original[index]?.content?.slice(0, Number(kept)));
    });
    expect(counter.calls).toBeLessThanOrEqual(MAX_MEASUREMENTS);
  });

  it('keeps short outputs whole and cuts the long ones to one length when cutting the long ones is enough', () => {
    // Prepare
    const shorts = Array.from({ length: 50 }, (_, index) => `short ${index} `.repeat(20));
    const longs = Array.from({ length: 5 }, (_, index) => String(index).repeat(20_000 + index * 1_000));
    const original = turnWithOutputs(...shorts.slice(0, 25), ...longs, ...shorts.slice(25));
    // Act
    const result = fitMessagesForStorage(original, contentCharacters, 30_000);
    // Assess
    expect(result).toMatchObject({ fits: true, truncatedToolMessages: 5 });
    const contents = (result.fits ? result.messages : []).flatMap((message) => (message.role === 'tool' ? [message.content] : []));
    expect([...contents.slice(0, 25), ...contents.slice(30)]).toEqual(shorts);
    const keptOfLongs = new Set(contents.slice(25, 30).map((content) => MARKER.exec(content)?.[1]));
    expect(keptOfLongs.size).toBe(1);
  });

  it('never splits a surrogate pair when it cuts', () => {
    const original = turnWithOutputs('😀'.repeat(3_000), 'a😀'.repeat(2_000), '日志😀'.repeat(1_000));
    const result = fitMessagesForStorage(original, contentCharacters, 3_001);
    expect(result).toMatchObject({ fits: true, truncatedToolMessages: 3 });
    const messages = result.fits ? result.messages : [];
    expect(messages.some((message) => LONE_SURROGATE.test(message.content ?? ''))).toBe(false);
    expect(contentCharacters(messages)).toBeLessThanOrEqual(3_001);
  });

  it('reports at once that the turn cannot fit when the text outside tool outputs is too large', () => {
    const messages = turnWithOutputs('a'.repeat(10_000));
    messages.push({ role: 'assistant', content: 'z'.repeat(2_000), toolCalls: [] });
    const counter = counted(contentCharacters);
    const result = fitMessagesForStorage(messages, counter.measure, 1_000);
    expect(result).toEqual({ fits: false, smallestBytes: 2_025 + '\n…[truncated for storage: kept 0 of 10000 characters]'.length });
    expect(counter.calls).toBe(2);
  });

  // However many outputs, and however unevenly the measure grows, the number of measurements stays
  // bounded: fitting costs a constant number of passes over the turn, time linear in its size.
  it.each([
    ['characters, 10 outputs', 10, contentCharacters],
    ['characters, 10,000 outputs', 10_000, contentCharacters],
    ['JSON length, 1,000 outputs', 1_000, (messages: HistoryMessage[]) => JSON.stringify(messages).length],
    ['a measure growing with the square of the characters', 1_000, (messages: HistoryMessage[]) => contentCharacters(messages) ** 2 / 100_000],
    ['a measure that counts only every other output', 1_000, (messages: HistoryMessage[]) =>
      messages.reduce((sum, message, index) => sum + (index % 2 === 0 ? (message.content?.length ?? 0) : 1), 0)],
  ])('measures at most eight times: %s', (_, outputs, measure) => {
    // Prepare
    const original = turnWithOutputs(...Array.from({ length: outputs }, (_, index) => 'o'.repeat(100 + ((index * 7_919) % 3_000))));
    const limit = Math.ceil(measure(original) / 3);
    const counter = counted(measure);
    // Act
    const result = fitMessagesForStorage(original, counter.measure, limit);
    // Assess
    expect(result.fits).toBe(true);
    expect(measure(result.fits ? result.messages : [])).toBeLessThanOrEqual(limit);
    expect(counter.calls).toBeLessThanOrEqual(MAX_MEASUREMENTS);
  });
});

describe('truncateToolMessage', () => {
  it('never splits a surrogate pair', () => {
    expect(truncateToolMessage(toolMessage('call_1', 'a😀b'), 2).content).toBe('a\n…[truncated for storage: kept 1 of 4 characters]');
  });
});

describe('capForBudget', () => {
  it.each([
    [[], 100, 0],
    [[10, 20, 30], 60, 30],
    [[10, 20, 30], 1_000, 30],
    [[10, 20, 30], 50, 20],
    [[10, 20, 30], 45, 17],
    [[10, 20, 30], 29, 9],
    [[10, 20, 30], 0, 0],
  ])('caps outputs of lengths %o to %i characters in all at %i each', (lengths, budget, cap) => {
    expect(capForBudget(lengths, budget)).toBe(cap);
  });
});
