/**
 * When a failed server is tried again: at once after a working session broke (it was fine a
 * moment ago), then 1 s, 2 s, 4 s, ... after each attempt that failed, never more than
 * `maxDelayMs` apart. The timer is unref'd: a pending retry never keeps a process (or a test) alive.
 */
const FIRST_RETRY_MS = 1_000;

export function retryDelayMs(failedAttempts: number, maxDelayMs: number): number {
  return failedAttempts === 0 ? 0 : Math.min(FIRST_RETRY_MS * 2 ** (failedAttempts - 1), maxDelayMs);
}

export class ReconnectBackoff {
  private readonly maxDelayMs: number;
  private readonly attempt: () => void;
  private failedAttempts = 0;
  private timer: NodeJS.Timeout | undefined;
  private nextAttemptAt = 0;

  constructor(maxDelayMs: number, attempt: () => void) {
    this.maxDelayMs = maxDelayMs;
    this.attempt = attempt;
  }

  /** A working session broke: try again at once. */
  sessionBroke(): void {
    this.failedAttempts = 0;
    this.schedule();
  }

  attemptFailed(): void {
    this.failedAttempts++;
    this.schedule();
  }

  succeeded(): void {
    this.failedAttempts = 0;
    this.cancel();
  }

  /** An attempt is starting now (scheduled or asked for): the pending one is dropped. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Milliseconds until the next scheduled attempt; 0 when it is due (or none is scheduled). */
  get waitMs(): number {
    return Math.max(0, this.nextAttemptAt - Date.now());
  }

  private schedule(): void {
    const delay = retryDelayMs(this.failedAttempts, this.maxDelayMs);
    this.nextAttemptAt = Date.now() + delay;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.attempt(), delay).unref();
  }
}
