/**
 * Where a client names the stored conversation to continue (LibreChat can fill it per chat), and
 * where every response names the conversation its turn is stored in.
 */
export const CONVERSATION_HEADER = 'x-conversation-id';
/** A client's key that makes the request safe to retry: a retry gets the stored turn. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
