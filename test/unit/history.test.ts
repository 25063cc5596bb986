import { describe, expect, it } from 'vitest';
import { condenseTurn, estimateTokens, historyViolations } from '../../lib/core/history.ts';
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
