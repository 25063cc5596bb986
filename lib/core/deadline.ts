/**
 * A time limit whose timer ends with the work. Not `AbortSignal.timeout`: its timer lives until the
 * limit passes however early the work ended (for every model call, tool call and store write of a
 * turn, up to the turn's whole time), and keeps the signal and what listens to it alive until then.
 * The abort reason is a TimeoutError, as `AbortSignal.timeout` gives, so a timeout can still be told
 * from a cancellation.
 */
export interface DeadlineSignal {
  signal: AbortSignal;
  /** Stops the timer: call it when the work ends, however it ends. */
  clear(): void;
}

export function deadlineSignal(timeoutMs: number, message = `no answer within ${timeoutMs} ms`): DeadlineSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(message, 'TimeoutError')), timeoutMs);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** Runs `work` with a signal that aborts after `timeoutMs`, and clears the timer when it ends. */
export async function withDeadline<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = deadlineSignal(timeoutMs);
  try {
    return await work(deadline.signal);
  } finally {
    deadline.clear();
  }
}
