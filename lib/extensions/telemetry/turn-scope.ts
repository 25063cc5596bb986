/**
 * What the turn's span knows that the extension's tool spans need: the decisions a request brought
 * for a paused turn's calls. Kept per async call chain (the worker runs several turns at once), as
 * the trace context is.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type Decision = 'approved' | 'declined' | 'answered';

export interface TurnScope {
  /** Call id → the decision this request brought for it (an answer to its server's question: `answered`). */
  decisions: ReadonlyMap<string, Decision>;
}

const storage = new AsyncLocalStorage<TurnScope>();

export const withTurnScope = <T>(scope: TurnScope, work: () => T): T => storage.run(scope, work);
export const currentTurnScope = (): TurnScope | undefined => storage.getStore();
