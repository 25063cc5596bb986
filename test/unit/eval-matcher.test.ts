import { describe, expect, it } from 'vitest';
import { matcherProblems, mismatch } from '../../lib/evals/matcher.ts';

describe('the matcher of arguments and JSON answers', () => {
  it.each([
    ['a subset of an object', { city: '上海' }, { city: '上海', unit: 'C' }],
    ['an array element by element', { orderNos: ['A', 'B'] }, { orderNos: ['A', 'B'] }],
    ['$contains in a string', { $contains: '海' }, '上海'],
    ['$contains in an array, by matcher', { $contains: { id: 2 } }, [{ id: 1 }, { id: 2, name: 'x' }]],
    ['$regex', { $regex: '^ORD\\d+$' }, 'ORD20250514118567'],
    ['$oneOf', { $oneOf: ['上海', 'Shanghai'] }, 'Shanghai'],
    ['$gte and $lte together', { $gte: 1, $lte: 5 }, 5],
    ['$length', { $length: 2 }, [1, 2]],
    ['$exists: false for an absent key', { debug: { $exists: false } }, { city: 'x' }],
    ['$any', { $any: true }, null],
  ])('matches %s', (_, matcher, actual) => {
    expect(mismatch(matcher, actual)).toBeUndefined();
  });

  it.each([
    ['a different value, saying where', { filter: { city: '上海' } }, { filter: { city: '北京' } }, '$.filter.city: expected "上海", got "北京"'],
    ['a missing key', { city: '上海' }, {}, '$.city: missing'],
    ['an array of another length', ['A'], ['A', 'B'], '$: expected 1 element(s), got 2: ["A","B"]'],
    ['a key that must be absent', { debug: { $exists: false } }, { debug: true }, '$.debug: expected no such key, got true'],
    ['a number out of bounds', { $lte: 25 }, 31, '$: expected a number <= 25, got 31'],
    ['a string against $regex', { $regex: '^ORD' }, 'X1', '$: expected a string matching /^ORD/, got "X1"'],
    ['no option of $oneOf', { $oneOf: [1, 2] }, 3, '$: expected one of [1,2], got 3'],
  ])('does not match %s', (_, matcher, actual, reason) => {
    expect(mismatch(matcher, actual)).toBe(reason);
  });

  it('names each operator that is wrong as written', () => {
    expect(matcherProblems({ a: { $regex: '(' }, b: [{ $gte: 'x' }], c: { $oneOf: [] }, d: { $near: 1 } }, 'match')).toEqual([
      expect.stringMatching(/^match\.a\.\$regex: not a regular expression/),
      'match.b[0].$gte: must be a number',
      'match.c.$oneOf: must be a non-empty list of matchers',
      'match.d: "$near" is not an operator (known: $contains, $regex, $oneOf, $exists, $gte, $lte, $length, $any); an object with a "$" key holds operators only',
    ]);
  });
});
