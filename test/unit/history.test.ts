import { describe, expect, it } from 'vitest';
import { condenseTurn, estimateTokens, historyViolations, windowOfMessages } from '../../lib/core/history.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';

const turn: HistoryMessage[] = [
  { role: 'user', content: '取消订单 ORD1' },
  { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNos":["ORD1"]}' }] },
  { role: 'tool', toolCallId: 'c1', name: 'batchCancelOrdersByOrderNo', content: '{"success":["ORD1"]}' },
  { role: 'assistant', content: '订单 ORD1 已取消。', toolCalls: [] },
];

describe('estimateTokens', () => {
  it('counts about four Latin characters a token and one CJK character a token', () => {
    const latin = estimateTokens([{ role: 'user', content: 'a'.repeat(400) }]);
    const chinese = estimateTokens([{ role: 'user', content: '天'.repeat(400) }]);
    expect(latin).toBe(104);
    expect(chinese).toBe(404);
  });
});

describe('condenseTurn', () => {
  it('keeps the question and the final answer, and no tool call without its result', () => {
    expect(condenseTurn(turn)).toEqual([turn[0], turn[3]]);
    expect(historyViolations(condenseTurn(turn))).toEqual([]);
  });

  it('keeps only the question of a turn that ended while still calling tools', () => {
    expect(condenseTurn(turn.slice(0, 3))).toEqual([turn[0]]);
  });
});

describe('windowOfMessages (a stateless caller\'s own chat)', () => {
  const exchange = (index: number): HistoryMessage[] => [
    { role: 'user', content: `question ${index} ${'x'.repeat(400)}` },
    { role: 'assistant', content: null, toolCalls: [{ id: `c${index}`, name: 'getWeather', arguments: '{"city":"上海"}' }] },
    { role: 'tool', toolCallId: `c${index}`, name: 'getWeather', content: 'y'.repeat(400) },
    { role: 'assistant', content: `answer ${index}`, toolCalls: [] },
  ];
  const chat = [1, 2, 3, 4, 5].flatMap(exchange);
  const perExchange = estimateTokens(exchange(1));

  it('keeps a chat within the budget as it is', () => {
    expect(windowOfMessages(chat, 100_000)).toEqual(chat);
  });

  it('keeps the newest whole exchanges within the budget, the one before them condensed, and the invariant', () => {
    const condensed = [exchange(3)[0]!, exchange(3)[3]!];
    const budget = perExchange * 2 + estimateTokens(condensed);
    const kept = windowOfMessages(chat, budget);
    expect(kept).toEqual([...condensed, ...exchange(4), ...exchange(5)]);
    expect(historyViolations(kept)).toEqual([]);
    expect(estimateTokens(kept)).toBeLessThanOrEqual(budget);
    expect(windowOfMessages(chat, budget - 1)).toEqual([...exchange(4), ...exchange(5)]);
  });

  it('keeps messages that come before the first user message with it', () => {
    const opening: HistoryMessage[] = [{ role: 'assistant', content: 'Hello! How can I help?', toolCalls: [] }, ...exchange(1)];
    expect(windowOfMessages(opening, 100_000)).toEqual(opening);
    expect(windowOfMessages([...opening, ...exchange(2)], perExchange + 10)).toEqual(exchange(2));
  });
});
