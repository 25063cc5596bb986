import { createHash, randomUUID } from 'node:crypto';

/**
 * A new conversation's id. With a requestId it is derived from it (and the owner), so a retried
 * "start a conversation" request lands on the same conversation and gets the stored turn instead of
 * running the tools a second time.
 */
export function newConversationId(requestId: string | undefined, owner: string | undefined): string {
  if (requestId === undefined) return randomUUID();
  const hex = createHash('sha256').update(`${owner ?? ''}\n${requestId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
