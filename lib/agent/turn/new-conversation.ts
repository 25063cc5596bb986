import { createHmac, randomUUID } from 'node:crypto';

/**
 * A new conversation's id. With a requestId it is derived from it (and the owner), so a retried
 * "start a conversation" request lands on the same conversation and gets the stored turn instead of
 * running the tools a second time.
 *
 * Derived with an HMAC keyed by the deployment's secret, never a plain hash: without authentication
 * the id is all that guards a conversation, and a requestId is often known (an order number, a
 * ticket id) or guessable. Owner and requestId are JSON-encoded, so no two pairs run together alike.
 */
export function newConversationId(requestId: string | undefined, owner: string | undefined, hmacKey: Uint8Array): string {
  if (requestId === undefined) return randomUUID();
  const hex = createHmac('sha256', hmacKey).update(`conversation-id\n${JSON.stringify([owner ?? null, requestId])}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
