/**
 * The loop's stop rules after each reply, as data (lib/agent/loop/stop-rules.ts): the first that applies
 * ends the loop, so an answer wins over the round limit and the round limit over the clock.
 */
import { describe, expect, it } from 'vitest';
import { STOP_RULES, type AfterReply } from '../../lib/agent/loop/stop-rules.ts';

const call = { id: 'call_1', name: 'getWeather', arguments: '{"city":"上海"}' };
const reply = (overrides: Partial<AfterReply>): AfterReply => ({ round: 2, maxRounds: 8, content: null, calls: [call], timeLeftMs: 10_000, ...overrides });
const firstStop = (after: AfterReply) => STOP_RULES.map((rule) => rule(after)).find((decided) => decided !== undefined);

describe('STOP_RULES', () => {
  it.each([
    ['a reply without calls, even at the last round with no time left', reply({ calls: [], content: 'done', round: 8, timeLeftMs: 0 }), { kind: 'completed', reply: 'done' }, undefined],
    ['a reply cut at the model’s output limit', reply({ calls: [], content: 'Once upon', stop: 'max_tokens' }), { kind: 'completed', reply: 'Once upon', stop: 'max_tokens' }, undefined],
    ['calls at the round limit, even with no time left', reply({ round: 8, timeLeftMs: 0 }), { kind: 'stopped', reason: 'max_rounds' }, /limit of 8 model replies/],
    ['calls with no time left', reply({ timeLeftMs: 0 }), { kind: 'stopped', reason: 'deadline' }, /ran out of time/],
  ])('stop %s', (_case, after, outcome, answer) => {
    const decided = firstStop(after);
    if (decided && 'sendBack' in decided) throw new Error('expected a stop, not a reply sent back');

    expect(decided?.outcome).toEqual(outcome);
    if (answer) expect(decided?.callsAnsweredWith).toMatch(answer);
    else expect(decided?.callsAnsweredWith).toBeUndefined();
  });

  it.each([
    ['a structured answer that validated completes with its output', reply({ calls: [], content: '{"a":1}', verdict: { ok: true, output: { a: 1 } } }), { outcome: { kind: 'completed', reply: '{"a":1}', output: { a: 1 } } }],
    ['a structured answer that did not validate is sent back while rounds are left', reply({ calls: [], content: 'nope', verdict: { ok: false, problems: 'it is not JSON' } }), { sendBack: 'it is not JSON' }],
    ['a structured answer that did not validate in the last round stops invalid_output', reply({ calls: [], content: 'nope', round: 8, verdict: { ok: false, problems: 'it is not JSON' } }), { outcome: { kind: 'stopped', reason: 'invalid_output', reply: 'nope', problems: 'it is not JSON' } }],
  ])('%s', (_case, after, decided) => {
    expect(firstStop(after)).toEqual(decided);
  });

  it('let a reply with calls, rounds and time left go on', () => {
    expect(firstStop(reply({}))).toBeUndefined();
  });
});
