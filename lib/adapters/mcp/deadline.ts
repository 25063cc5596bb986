/**
 * A time limit for one connect or listing, that also ends when the gateway shuts down.
 *
 * Why not `AbortSignal.any([AbortSignal.timeout(ms), shutdown])`: the SDK never removes the abort
 * listeners it adds for a request, so a signal that fires after the request finished would make
 * it send notifications/cancelled for long-completed requests (initialize among them, which must
 * never be cancelled). dispose() guarantees this signal stays quiet once the work is done.
 */
export interface Deadline {
  signal: AbortSignal;
  /** True when the time limit, not the shutdown, ended the work. */
  readonly timedOut: boolean;
  dispose(): void;
}

export function startDeadline(timeoutMs: number, shutdown: AbortSignal): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onShutdown = () => controller.abort(shutdown.reason);
  if (shutdown.aborted) onShutdown();
  else shutdown.addEventListener('abort', onShutdown, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      shutdown.removeEventListener('abort', onShutdown);
    },
  };
}
