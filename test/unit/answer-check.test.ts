/**
 * The check of a structured answer (lib/agent/loop/answer-check.ts) and the turn's last look at a
 * strategy's final answer (checked-outcome.ts).
 */
import { describe, expect, it } from 'vitest';
import { answerCheck } from '../../lib/agent/loop/answer-check.ts';
import { checkedOutcome } from '../../lib/agent/loop/checked-outcome.ts';
import { InputError } from '../../lib/core/errors.ts';

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const check = answerCheck({ type: 'json_schema', name: 'weather', schema });

describe('answerCheck', () => {
  it.each([
    ['JSON that validates', '{"city":"上海"}', { ok: true, output: { city: '上海' } }],
    ['prose', 'It is sunny.', { ok: false, problems: expect.stringMatching(/^it is not JSON \(/) }],
    ['no text at all', null, { ok: false, problems: expect.stringMatching(/^it is not JSON/) }],
    ['a missing property', '{}', { ok: false, problems: "(the answer) must have required property 'city'" }],
    ['a wrong type and an extra property', '{"city":1,"when":"today"}', { ok: false, problems: '(the answer) must NOT have additional properties ("when"); /city must be string' }],
  ])('judges %s', (_case, content, verdict) => {
    expect(check.check(content)).toEqual(verdict);
  });

  it('refuses a schema that is not JSON Schema, naming it', () => {
    expect(() => answerCheck({ type: 'json_schema', name: 'broken', schema: { type: 'strin' } })).toThrow(InputError);
    expect(() => answerCheck({ type: 'json_schema', name: 'broken', schema: { type: 'strin' } })).toThrow(/"broken" is not a valid JSON Schema/);
  });
});

describe('checkedOutcome', () => {
  it('adds the output to a completed answer no phase checked, and stops invalid_output for one that does not validate', () => {
    expect(checkedOutcome({ kind: 'completed', reply: '{"city":"上海"}' }, check)).toEqual({ kind: 'completed', reply: '{"city":"上海"}', output: { city: '上海' } });
    expect(checkedOutcome({ kind: 'completed', reply: 'sunny' }, check)).toMatchObject({ kind: 'stopped', reason: 'invalid_output', reply: 'sunny' });
  });

  it('leaves every other outcome, and every turn without a format, as it is', () => {
    expect(checkedOutcome({ kind: 'stopped', reason: 'deadline' }, check)).toEqual({ kind: 'stopped', reason: 'deadline' });
    expect(checkedOutcome({ kind: 'completed', reply: 'sunny' }, undefined)).toEqual({ kind: 'completed', reply: 'sunny' });
  });
});
