import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../lib/strategies/reflection/verdict.ts';
import { judgePick, voteByAgreement } from '../../lib/strategies/reflection/vote.ts';

describe('voteByAgreement (self-consistency)', () => {
  it.each([
    { case: 'the majority wins over the first answer', answers: ['It is 41.', 'It is 42.', 'it is 42'], chosen: 1 },
    { case: 'case, spacing and punctuation do not split a majority', answers: ['Paris', 'The capital is Lyon.', 'paris!', ' PARIS '], chosen: 0 },
    { case: 'answers in CJK agree by their characters', answers: ['上海今天晴，25度。', '北京今天下雨。', '上海今天晴，气温25度。'], chosen: 0 },
    { case: 'a tie goes to the earliest answer', answers: ['alpha', 'beta'], chosen: 0 },
    { case: 'one answer is chosen alone', answers: ['only'], chosen: 0 },
  ])('$case', ({ answers, chosen }) => {
    expect(voteByAgreement(answers).chosen).toBe(chosen);
  });

  it('scores each answer by its agreement with the others: 1 for the same answer, the share of common words otherwise', () => {
    // "a b" and "a c" share one word of three: 1/3 each way.
    expect(voteByAgreement(['a b', 'A b.', 'a c']).scores).toEqual([1.33, 1.33, 0.67]);
  });

  it('refuses to vote on no answers at all', () => {
    expect(() => voteByAgreement([])).toThrow(/at least one answer/);
  });
});

describe('judgePick', () => {
  it.each([
    { reply: '2', count: 3, pick: 1 },
    { reply: 'The best is [3].', count: 3, pick: 2 },
    { reply: '4', count: 3, pick: undefined },
    { reply: '0', count: 3, pick: undefined },
    { reply: 'none of them', count: 3, pick: undefined },
  ])('reads "$reply" among $count answers as $pick', ({ reply, count, pick }) => {
    expect(judgePick(reply, count)).toBe(pick);
  });
});

describe('verdictOf (a critique\'s last verdict line)', () => {
  it.each([
    { critique: 'All facts are backed.\nVERDICT: OK', verdict: 'ok' },
    { critique: 'Missing the temperature.\nVERDICT: REVISE', verdict: 'revise' },
    { critique: 'It talks about news, not weather.\n**VERDICT: FAIL**', verdict: 'fail' },
    { critique: 'verdict: ok, or rather…\nVerdict： revise', verdict: 'revise' },
    { critique: 'Looks mostly fine to me.', verdict: 'revise' },
  ])('$critique → $verdict', ({ critique, verdict }) => {
    expect(verdictOf(critique)).toBe(verdict);
  });
});
