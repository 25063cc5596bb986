/**
 * `new Date(time).toISOString()`, the same text, for the trace's `startedAt` of every model call.
 * toISOString is a call into the engine (0.5 to 0.7 µs a call in a microbenchmark on Node 22); a
 * round mostly starts in the same minute as the one before, so the text up to the minute is kept
 * and only the seconds and milliseconds are written.
 */

const MINUTE_MS = 60_000;

/** The minute the last time fell in (epoch ms of its start) and its text up to the seconds: "2026-11-27T00:41:". */
let minute = { start: Number.NaN, text: '' };

export function isoTime(time: number): string {
  let offset = time - minute.start;
  if (!(offset >= 0 && offset < MINUTE_MS)) {
    // Milliseconds only (a time between two is cut by Date), and years 0 to 9999 (others are written with a sign and six digits).
    if (!Number.isInteger(time)) return new Date(time).toISOString();
    const start = time - (((time % MINUTE_MS) + MINUTE_MS) % MINUTE_MS);
    const text = new Date(start).toISOString();
    if (text.length !== 24) return new Date(time).toISOString();
    minute = { start, text: text.slice(0, 17) };
    offset = time - start;
  }
  const seconds = Math.floor(offset / 1000);
  const milliseconds = offset - seconds * 1000;
  // The seconds part first, short enough to be written as one flat text, then joined once to the minute's.
  const rest = `${seconds < 10 ? '0' : ''}${seconds}.${milliseconds < 100 ? (milliseconds < 10 ? '00' : '0') : ''}${milliseconds}Z`;
  return minute.text + rest;
}
