import { randomUUID } from 'node:crypto';
import { withCallerToken, type CallerToken } from '../../core/caller-token.ts';
import { withLogContext } from '../../core/log-context.ts';
import type { Logger } from '../../core/logger.ts';
import { withTraceContext, type TraceContext } from '../../core/trace-context.ts';
import type { ConversationKey, ConversationStore } from '../../core/ports/conversation-store.ts';
import type { AgentSettings } from '../settings.ts';
import { deadlineOf, type HeldTurn } from './held-turn.ts';
import { createLease, type Lease } from './lease.ts';

/** The ids, deadline and lease of one request. */
export interface RequestScope {
  key: ConversationKey;
  requestId: string;
  claimId: string;
  deadlineAt: number;
  /** What the request holds (its turn's claim, its turn slot) is renewed under it while it runs. */
  lease: Lease;
}

interface ScopeServices {
  settings: AgentSettings;
  store: ConversationStore;
  logger: Logger;
  now: () => number;
}

/** Starts requests, and says what opening their turn needs from them. */
export function requestScopes({ settings, store, logger, now }: ScopeServices) {
  /** The ids, deadline and lease of one request; its log lines, adapters' included, carry the ids, and its calls the caller's trace context. */
  function start<T>(input: { conversationId: string; owner?: string; requestId?: string; deadlineAt?: number; trace?: TraceContext; callerToken?: CallerToken }, work: (scope: RequestScope) => Promise<T>): Promise<T> {
    const key: ConversationKey = { conversationId: input.conversationId, ...(input.owner ? { owner: input.owner } : {}) };
    const requestId = input.requestId ?? randomUUID();
    const deadlineAt = input.deadlineAt ?? now() + settings.turnTimeoutMs;
    // Short and renewed while this process lives; never past the deadline and a margin, when its holder is surely gone.
    const lease = createLease({ durationMs: settings.leaseMs, latestEnd: deadlineAt + settings.leaseMarginMs, now, logger });
    // The caller's token reaches the MCP requests made within (servers acting on its behalf), and nothing that is stored.
    return withCallerToken(input.callerToken, () => withTraceContext(input.trace, () => withLogContext({ conversationId: key.conversationId, requestId }, () => work({ key, requestId, deadlineAt, lease, claimId: randomUUID() }))));
  }

  /** What opening a turn (a question's or a decision's) takes from the request, as of now. */
  const openingOf = (scope: RequestScope) => ({
    store,
    key: scope.key,
    requestId: scope.requestId,
    claimId: scope.claimId,
    now: now(),
    leaseExpiresAt: scope.lease.end(),
    deadline: deadlineOf(scope.deadlineAt, now),
    waitForStoreUntil: now() + settings.storeWaitMs,
    clock: now,
    rules: settings.rules,
  });

  /** Gives back a claim under which nothing ran, within the time a request that ran nothing waits for the store. */
  const giveBack = (held: HeldTurn): Promise<void> =>
    deadlineOf(now() + settings.storeWaitMs, now)
      .bound((options) => store.remove(held.key, held.turn, { claimId: held.claimId, status: 'running' }, options))
      .then(() => undefined, () => undefined);

  return { start, openingOf, giveBack };
}
