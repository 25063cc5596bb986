/**
 * A time limit whose timer ends with the work. Not `AbortSignal.timeout`: its timer lives until the
 * limit passes however early the work ended (for every model call, tool call and store write of a
 * turn, up to the turn's whole time), and keeps the signal and what listens to it alive until then.
 * The abort reason is a TimeoutError, as `AbortSignal.timeout` gives, so a timeout can still be told
 * from a cancellation.
 */
interface DeadlineSignal {
  signal: AbortSignal;
  /** Stops the timer: call it when the work ends, however it ends. */
  clear(): void;
}

export function deadlineSignal(timeoutMs: number, message = `no answer within ${timeoutMs} ms`): DeadlineSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(message, 'TimeoutError')), timeoutMs);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * The signal of one call bounded twice: by its caller's signal and by its own time limit (retries
 * included), when each is given. `timedOut()` tells the limit's own abort from the caller's; `clear()`
 * ends the limit's timer, however the call ended.
 */
export function callSignal(request: { signal?: AbortSignal; timeoutMs?: number }, message: string): { signal?: AbortSignal; timedOut(): boolean; clear(): void } {
  const deadline = request.timeoutMs === undefined ? undefined : deadlineSignal(request.timeoutMs, message);
  const both = request.signal && deadline ? eitherSignal(request.signal, deadline.signal) : undefined;
  const signal = both?.signal ?? request.signal ?? deadline?.signal;
  return {
    ...(signal ? { signal } : {}),
    timedOut: () => deadline?.signal.aborted ?? false,
    clear: () => {
      deadline?.clear();
      both?.release();
    },
  };
}

/**
 * A signal that aborts when either of two does, with the reason of the first to abort, as
 * `AbortSignal.any([first, second])` would; `release()` stops following them, when the work it
 * bounds has ended. Not `AbortSignal.any`: Node's keeps every signal it makes linked to its sources
 * through weak references and a finalization registry, which costs about four times a pair of
 * plain listeners (10 against 2.6 µs per signal, garbage collection included), and one is made for
 * every model call and every tool call of a turn.
 */
export function eitherSignal(first: AbortSignal, second: AbortSignal): { signal: AbortSignal; release(): void } {
  if (first.aborted) return { signal: AbortSignal.abort(first.reason), release() {} };
  if (second.aborted) return { signal: AbortSignal.abort(second.reason), release() {} };
  const controller = new AbortController();
  const release = () => {
    first.removeEventListener('abort', onFirst);
    second.removeEventListener('abort', onSecond);
  };
  const onFirst = () => {
    release();
    controller.abort(first.reason);
  };
  const onSecond = () => {
    release();
    controller.abort(second.reason);
  };
  first.addEventListener('abort', onFirst);
  second.addEventListener('abort', onSecond);
  return { signal: controller.signal, release };
}

/**
 * A signal of one piece of work that aborts when `source` does, while followed: `release()` when
 * the work ends, and a later abort of `source` no longer reaches it (ToolCallOptions.signal).
 */
export function followSignal(source: AbortSignal): { signal: AbortSignal; controller: AbortController; release(): void } {
  const controller = new AbortController();
  if (source.aborted) {
    controller.abort(source.reason);
    return { signal: controller.signal, controller, release() {} };
  }
  const forward = () => controller.abort(source.reason);
  source.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, controller, release: () => source.removeEventListener('abort', forward) };
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

/** Many calls bounded by one moment, with one timer between them: `end()` it when no call is left to make. */
interface SharedDeadline {
  run<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  end(): void;
}

/**
 * The calls of a turn bounded by the same moment `at` (its store writes, its rounds' tool calls),
 * each as `withDeadline(Math.max(leastMs, at - now()), work)` would bound it, sharing one timer
 * instead of a timer each: a call started while at least `leastMs` is left is ended at `at`, which
 * the shared signal does; one started later gets `leastMs` of its own. Node keeps a timer list per
 * duration, and a limit counted down to a moment has a new duration at every call, so a timer each
 * was a list made and dropped each time: a turn of 5 rounds of 2 calls makes 5 of these timers
 * instead of 18, about 1.5% of its CPU in process. The timer is made by the first call and lives
 * until `end()` (after which every call gets a timer of its own again), so whoever makes one ends it
 * however the turn ends.
 */
export function sharedDeadline(at: number, now: () => number, leastMs: number): SharedDeadline {
  let shared: DeadlineSignal | undefined;
  let ended = false;
  return {
    run(work) {
      const leftMs = at - now();
      if (ended || leftMs < leastMs) return withDeadline(Math.max(leastMs, leftMs), work);
      shared ??= deadlineSignal(leftMs, `no answer by the deadline, ${new Date(at).toISOString()}`);
      return work(shared.signal);
    },
    end() {
      ended = true;
      shared?.clear();
    },
  };
}

/**
 * Time kept between a turn's deadline and the end of the invocation that runs it, to answer: the
 * error response, or the queue's partial batch response and its redelivery calls. A turn that
 * waits for the store until the invocation's very end is cut off by it (middy's early timeout,
 * then Lambda's), and its caller gets a bare failure instead of a status that says what happened.
 */
export const ANSWER_MARGIN_MS = 2_000;

/** The deadline of a turn run by an invocation that must end within `remainingMs`. */
export const turnDeadlineWithin = (now: number, remainingMs: number): number => now + remainingMs - ANSWER_MARGIN_MS;

/** A deadline that progress moves on: `extend()` starts the idle time again, never past `maxMs` in all. */
interface IdleDeadlineSignal extends DeadlineSignal {
  extend(): void;
}

/**
 * A time limit for work that reports progress (an MCP tool call with a progress token): it aborts
 * when `idleMs` pass without progress, or when `maxMs` have passed in all, whichever comes first;
 * and, given `caller`, when the caller's signal aborts, with its reason, as eitherSignal would. One
 * controller and one listener for both: a tool call made a limit and an eitherSignal over it and
 * the round's signal, three controllers a call with the MCP client's own, and in a process as young
 * as a function's each controller and listener costs (docs/benchmarks.md).
 */
export function idleDeadlineSignal(idleMs: number, maxMs: number, caller?: AbortSignal): IdleDeadlineSignal {
  const controller = new AbortController();
  const startedAt = Date.now();
  const limitMs = Math.max(idleMs, maxMs);
  let timer: NodeJS.Timeout | undefined;
  const onCaller = () => {
    clearTimeout(timer);
    controller.abort(caller!.reason);
  };
  const arm = (ms: number, message: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      caller?.removeEventListener('abort', onCaller);
      controller.abort(new DOMException(message, 'TimeoutError'));
    }, ms);
  };
  if (caller?.aborted) controller.abort(caller.reason);
  else {
    caller?.addEventListener('abort', onCaller);
    arm(idleMs, `no answer within ${idleMs} ms`);
  }
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCaller);
    },
    extend() {
      if (controller.signal.aborted) return;
      const leftMs = startedAt + limitMs - Date.now();
      if (leftMs <= idleMs) arm(Math.max(0, leftMs), `no answer within ${limitMs} ms, progress notwithstanding`);
      else arm(idleMs, `no progress or answer within ${idleMs} ms`);
    },
  };
}
