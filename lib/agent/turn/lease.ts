import { withDeadline } from '../../core/deadline.ts';
import { errorMessage, TurnTakenError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';

/**
 * A request's lease: how long what it holds (its turn's claim, its turn slot) stays its own if it
 * says nothing more. Short (turn.leaseSeconds), and renewed while the process lives, so a process
 * that died blocks its conversation for seconds rather than for the turn's whole deadline.
 *
 *   claim written, lease = now + leaseSeconds
 *     a third of it passes without a write of the claim   -> renew: one conditional UpdateItem
 *     a round record is written meanwhile                 -> it carries the new end: nothing to send
 *     the turn is stored, paused, given back               -> renewal stops (a paused turn holds no lease)
 *
 * Most turns end within a third of the lease and add no request at all. The lease never reaches past
 * the turn's deadline plus turn.leaseMarginSeconds: by then its holder has surely stopped.
 */
export interface Lease {
  /** ms epoch: the end a claim written now carries. */
  end(): number;
  /** Keeps one claim alive until released. */
  keep(claim: LeasedClaim): KeptClaim;
}

interface LeasedClaim {
  /** For the logs: "turn claim", "turn slot". */
  what: string;
  /** ms epoch: the end its last write carried. */
  until: number;
  /** Moves the stored end to `until`; throws TurnTakenError when the claim is no longer held. */
  renew(until: number, signal: AbortSignal): Promise<void>;
}

export interface KeptClaim {
  /** The end a write of the claim made now carries (a round record). */
  end(): number;
  /** A write of the claim carrying `until` succeeded: the renewal it stands for is not sent. */
  written(until: number): void;
  /** Stops renewing: the turn is stored, paused, given back or lost. */
  release(): void;
}

interface LeaseOptions {
  /** turn.leaseSeconds, in ms. */
  durationMs: number;
  /** ms epoch no lease reaches past: the turn's deadline plus turn.leaseMarginSeconds. */
  latestEnd: number;
  now: () => number;
  logger: Logger;
}

/** A claim is renewed once this share of its lease passed since its last write. */
const RENEW_AFTER_SHARE = 1 / 3;

export function createLease(options: LeaseOptions): Lease {
  const { durationMs, latestEnd, now, logger } = options;
  const end = () => Math.min(now() + durationMs, latestEnd);
  const renewAfterMs = Math.max(1, Math.round(durationMs * RENEW_AFTER_SHARE));

  function keep(claim: LeasedClaim): KeptClaim {
    let until = claim.until;
    let released = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** ms epoch the pending timer fires at (none pending: Infinity). */
    let timerAt = Number.POSITIVE_INFINITY;

    const schedule = (delayMs: number) => {
      clearTimeout(timer);
      if (released) return;
      const waitMs = Math.max(0, delayMs);
      timerAt = now() + waitMs;
      timer = setTimeout(onTimer, waitMs);
      // A lease never keeps a process alive: it matters only while the turn does.
      timer.unref?.();
    };
    /** When the next renewal is due: a third of the lease after the end last written was set. */
    const renewalAt = () => until - durationMs + renewAfterMs;
    const scheduleFromEnd = () => schedule(renewalAt() - now());
    /**
     * A timer set for a renewal that a write has since put off fires early: it waits again for the
     * rest. So a write leaves the timer as it is, unless the renewal is now due sooner than the timer
     * fires: a turn writes its claim twice a round, and a timer made and cleared at each write was
     * about a sixth of a turn's CPU in one process, 5 rounds of 2 calls (docs/benchmarks.md).
     */
    const onTimer = () => {
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      const leftMs = renewalAt() - now();
      if (leftMs > 0) schedule(leftMs);
      else void renew();
    };

    async function renew(): Promise<void> {
      if (released) return;
      const next = end();
      // The deadline's cap reached: nothing longer to write, and the turn ends before it anyway.
      if (next <= until) return;
      try {
        await withDeadline(Math.max(250, until - now()), (signal) => claim.renew(next, signal));
        until = Math.max(until, next);
        scheduleFromEnd();
      } catch (error) {
        if (released) return;
        if (error instanceof TurnTakenError) {
          // Completed by another request after the lease ended: the turn's own writes will say so.
          logger.warn(`lost a ${claim.what}: it is no longer held by this request`, { error: errorMessage(error) });
          released = true;
          return;
        }
        // The store is unavailable: try again a few times within the lease, never in a tight loop.
        logger.warn(`could not renew a ${claim.what}; trying again`, { error: errorMessage(error) });
        schedule(Math.max(250, renewAfterMs / 2));
      }
    }

    scheduleFromEnd();
    return {
      end,
      written(writtenUntil) {
        // Taken as is, not as a maximum: a write may land after a renewal it raced, and then its end is the stored one.
        until = writtenUntil;
        if (renewalAt() < timerAt) scheduleFromEnd();
      },
      release() {
        released = true;
        clearTimeout(timer);
      },
    };
  }

  return { end, keep };
}
