/** Seconds, as the configuration states durations, → milliseconds, as timers take them. */
export const ms = (seconds: number): number => Math.round(seconds * 1000);
