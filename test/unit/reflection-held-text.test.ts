import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../lib/agent/loop/loop-events.ts';
import { HeldText } from '../../lib/strategies/reflection/held-text.ts';

const call = (round: number): LoopEvent => ({ type: 'tool-call', round, call: { id: `call_${round}`, name: 'getWeather', arguments: {} } });
const text = (round: number, piece: string): LoopEvent => ({ type: 'text-delta', round, text: piece });

describe('HeldText (the text a client is streamed in a reflection turn)', () => {
  it('sends the text a round wrote beside its tool calls, whole, just before the calls', () => {
    const sent: LoopEvent[] = [];
    const held = new HeldText((event) => sent.push(event));

    for (const event of [{ type: 'round-start', round: 1 } as LoopEvent, text(1, 'Let me '), text(1, 'look.'), call(1)]) held.events(event);

    expect(sent).toEqual([{ type: 'round-start', round: 1 }, text(1, 'Let me look.'), call(1)]);
  });

  it('holds back the answer round’s text, and drops it when asked: the candidate is sent only if chosen', () => {
    const sent: LoopEvent[] = [];
    const held = new HeldText((event) => sent.push(event));

    for (const event of [{ type: 'round-start', round: 2 } as LoopEvent, text(2, 'a draft'), { type: 'reasoning-delta', round: 2, text: 'thinking' } as LoopEvent]) held.events(event);
    held.drop();
    held.flushAll();

    expect(sent).toEqual([{ type: 'round-start', round: 2 }, { type: 'reasoning-delta', round: 2, text: 'thinking' }]);
  });

  it('sends what it holds when the loop ended without an answer (its last words are no draft)', () => {
    const sent: LoopEvent[] = [];
    const held = new HeldText((event) => sent.push(event));

    held.events(text(3, 'I could not finish.'));
    held.flushAll();

    expect(sent).toEqual([text(3, 'I could not finish.')]);
  });
});
