/**
 * The client's requests still waiting for an answer on one connection, seen from the bytes it
 * sends: a response that was cut off may only answer one of these, never a request that was
 * already answered, cancelled, or that the server itself sent (its ids are a separate sequence).
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

export class PendingRequests {
  private readonly ids = new Set<RequestId>();
  private readonly parent: PendingRequests | undefined;

  /** A POST's own requests are also the connection's: settling one here settles it there. */
  constructor(parent?: PendingRequests) {
    this.parent = parent;
  }

  /** Records what the client sent: requests start waiting, a cancellation ends the wait. */
  sent(messages: JSONRPCMessage | JSONRPCMessage[]): void {
    for (const message of Array.isArray(messages) ? messages : [messages]) {
      if (!('method' in message)) continue;
      if ('id' in message) this.ids.add(message.id);
      else if (message.method === 'notifications/cancelled') this.settle(message.params?.['requestId'] as RequestId);
    }
  }

  settle(id: RequestId): void {
    this.ids.delete(id);
    this.parent?.settle(id);
  }

  has(id: unknown): id is RequestId {
    return (typeof id === 'string' || typeof id === 'number') && this.ids.has(id);
  }

  get size(): number {
    return this.ids.size;
  }

  /** The one waiting request, when exactly one is waiting. */
  only(): RequestId | undefined {
    if (this.ids.size !== 1) return undefined;
    return this.ids.values().next().value;
  }

  all(): RequestId[] {
    return [...this.ids];
  }

  clear(): void {
    this.ids.clear();
  }
}
