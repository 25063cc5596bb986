import type { FaultKind } from './dynamodb-faults.ts';

/** One request the fault proxy saw, filled in as it goes. */
export interface ProxyLogEntry {
  /** 'PutItem', 'UpdateItem', ... ('' when the request had no X-Amz-Target). */
  operation: string;
  /** The parsed JSON request body (low-level wire shape); undefined when it was not JSON. */
  body: Record<string, unknown> | undefined;
  fault: FaultKind | undefined;
  /** Sent to the target. */
  forwarded: boolean;
  /** The target's HTTP status, once it answered: 200 means the request took effect there. */
  upstreamStatus?: number;
  /** What the client got: an HTTP status, or 'reset' / 'hang' when it got no answer. */
  clientOutcome?: number | 'reset' | 'hang';
}

export interface ProxyLog {
  readonly entries: readonly ProxyLogEntry[];
  /** Requests for `operation` that reached the proxy. */
  seen(operation: string): number;
  /** Requests for `operation` sent to the target. */
  forwarded(operation: string): number;
  /** Requests for `operation` the target answered 2xx: the ones that took effect (a write committed). */
  succeeded(operation: string): number;
}

export function createProxyLog(): ProxyLog & { add(entry: ProxyLogEntry): ProxyLogEntry; clear(): void } {
  const entries: ProxyLogEntry[] = [];
  const count = (operation: string, test: (entry: ProxyLogEntry) => boolean) =>
    entries.filter((entry) => entry.operation === operation && test(entry)).length;
  return {
    entries,
    seen: (operation) => count(operation, () => true),
    forwarded: (operation) => count(operation, (entry) => entry.forwarded),
    succeeded: (operation) =>
      count(operation, (entry) => entry.upstreamStatus !== undefined && entry.upstreamStatus >= 200 && entry.upstreamStatus < 300),
    add(entry) {
      entries.push(entry);
      return entry;
    },
    clear() {
      entries.length = 0;
    },
  };
}
