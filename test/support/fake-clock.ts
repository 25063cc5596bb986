/**
 * A clock for a child process (`npm start` in end-to-end tests), loaded before anything else with
 * `node --import ./test/support/fake-clock.ts`: Date (Date.now() and new Date()) runs at real speed
 * from an offset the test writes to the file named by FAKE_CLOCK_FILE, read again at every call,
 * so a test moves the server's time (across midnight, say) without sleeping or restarting it: it
 * writes `target - Date.now()` there.
 * Timers are untouched: only what the code reads as "now" moves.
 */
import { readFileSync } from 'node:fs';

const file = process.env.FAKE_CLOCK_FILE;
if (file) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  const offsetMs = (): number => {
    try {
      return Number(readFileSync(file, 'utf8')) || 0;
    } catch {
      return 0;
    }
  };
  const fakeNow = () => realNow() + offsetMs();
  class ShiftedDate extends RealDate {
    constructor(...parts: unknown[]) {
      if (parts.length === 0) super(fakeNow());
      else super(...(parts as [string]));
    }
    static override now(): number {
      return fakeNow();
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
}

