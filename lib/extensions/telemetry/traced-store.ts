/**
 * A span for each write to the conversation store (the turn's claim, its completion or pause, lease
 * renewals, a claim given back, a deletion), a child of the turn's span: the conventions' database
 * span, `{db.operation.name} {db.collection.name}`. Reads are left out: one Query per turn, and
 * the turn's span already covers them.
 */
import { AgentError } from '../../core/errors.ts';
import type { ConversationStore } from '../../core/ports/conversation-store.ts';
import type { TelemetryTracer } from '../../core/ports/telemetry.ts';
import { currentTraceContext } from '../../core/trace-context.ts';

export interface StoreIdentity {
  /** db.system.name, e.g. `aws.dynamodb`. */
  system: string;
  /** db.collection.name: the table. */
  collection: string;
}

const WRITES = ['create', 'update', 'renewLease', 'remove', 'deleteConversation'] as const;

export function tracedStore(store: ConversationStore, tracer: TelemetryTracer, identity: StoreIdentity): ConversationStore {
  const traced: ConversationStore = { ...bound(store) };
  for (const operation of WRITES) {
    const write = store[operation].bind(store) as (...args: unknown[]) => Promise<unknown>;
    (traced as unknown as Record<string, unknown>)[operation] = async (...args: unknown[]) => {
      const context = currentTraceContext();
      const turn = typeof args[1] === 'number' ? args[1] : undefined;
      // What the write leaves the turn as: running (a claim), paused or complete.
      const written = (operation === 'create' ? args[2] : operation === 'update' ? args[3] : undefined) as { status?: string } | undefined;
      const span = tracer.startSpan(`${operation} ${identity.collection}`, {
        kind: 'client',
        ...(context ? { parent: context } : {}),
        attributes: { 'db.system.name': identity.system, 'db.collection.name': identity.collection, 'db.operation.name': operation, 'mcp_agent.turn': turn, 'mcp_agent.turn.status': written?.status },
      });
      try {
        return await write(...args);
      } catch (error) {
        span.fail(error instanceof AgentError ? error.code : error instanceof Error ? error.name : 'store_failed', error instanceof Error ? error.message : String(error));
        throw error;
      } finally {
        span.end();
      }
    };
  }
  return traced;
}

/** The store's methods bound to it, so a class-based store keeps its `this`. */
function bound(store: ConversationStore): ConversationStore {
  const methods: Record<string, unknown> = {};
  for (const name of ['readRecent', 'readAll', 'readPage', ...WRITES] as const) methods[name] = (store[name] as (...args: unknown[]) => unknown).bind(store);
  return methods as unknown as ConversationStore;
}
