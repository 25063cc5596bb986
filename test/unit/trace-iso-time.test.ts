/**
 * The trace writes each model call's start (`startedAt`) without Date's toISOString, keeping the
 * text up to the minute: it must be toISOString's text, whatever the time.
 */
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../lib/extensions/trace/iso-time.ts';

describe('the trace\'s time text', () => {
  it('is toISOString\'s, across minutes, hours, days and years, before 1970 too', () => {
    const times = [0, 1, 999, 1_000, 59_999, 60_000, 60_001, -1, -60_000, -60_001, 951_782_399_999, 951_782_400_000, 1_764_201_600_000, 253_402_300_799_999];
    // Times close together (as a turn's calls are), then far apart.
    let time = 1_764_201_000_000;
    for (let step = 0; step < 5_000; step++) times.push((time += (step * 7_919) % 4_001));
    for (let step = 0; step < 2_000; step++) times.push(Math.round(Math.sin(step) * 8e15));
    for (const at of times) expect(isoTime(at)).toBe(new Date(at).toISOString());
  });

  it('writes a time Date cuts (a fraction of a millisecond) or writes with six digits as Date does', () => {
    for (const at of [1.5, 1_764_201_600_000.7, 253_402_300_800_000, -62_167_219_200_001, 8.64e15, -8.64e15]) expect(isoTime(at)).toBe(new Date(at).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
