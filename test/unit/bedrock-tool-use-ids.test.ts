import { describe, expect, it } from 'vitest';
import { createToolUseIds, encode } from '../../lib/adapters/bedrock/tool-use-ids.ts';

describe('Bedrock tool-use ids', () => {
  it.each([
    ['tooluse_Ab3-x', 'tooluse_Ab3-x'],
    ['call_7UjkXq3WmZp9Rt2LbV0aHs1d', 'call_7UjkXq3WmZp9Rt2LbV0aHs1d'],
  ])('keeps %s, which Converse accepts', (id, wire) => {
    expect(encode(id)).toBe(wire);
  });

  it.each(['functions.getWeather:0', 'a b', '::', 'x'.repeat(65), `call_${'é'.repeat(70)}`])('encodes %s into [a-zA-Z0-9_-]{1,64}, the same way every time', (id) => {
    expect(encode(id)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(encode(id)).toBe(encode(id));
  });

  it('gives different ids different wire ids, even when their readable parts match', () => {
    expect(encode('a.b')).not.toBe(encode('a:b'));
  });

  it('answers a result with the wire id of the latest call of that id, and maps wire ids back', () => {
    const ids = createToolUseIds();

    const first = ids.forCall('call_0');
    const second = ids.forCall('call_0');

    expect([first, second]).toEqual(['call_0', 'call_0_2']);
    expect(ids.forResult('call_0')).toBe('call_0_2');
    expect(ids.fromWire('call_0_2')).toBe('call_0');
    expect(ids.fromWire(ids.forCall('functions.getWeather:0'))).toBe('functions.getWeather:0');
  });
});
