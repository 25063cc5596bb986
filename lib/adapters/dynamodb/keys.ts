import type { ConversationKey } from '../../core/ports.ts';

/** Stands for "no owner" (authentication off); no encoded owner can be this string. */
const NO_OWNER = '-';

/**
 * The partition key of a conversation: `${owner}#${conversationId}`, or `-#${conversationId}` when
 * there is no owner.
 *
 * The owner is percent-encoded so it never contains `#`: the first `#` always ends the owner, and
 * two different owners can never produce the same key, whatever the conversation id. `-` is
 * encoded too (encodeURIComponent leaves it alone), so the owner "-" cannot pose as "no owner".
 */
export function conversationPartitionKey(key: ConversationKey): string {
  const owner = key.owner === undefined ? NO_OWNER : encodeOwner(key.owner);
  return `${owner}#${key.conversationId}`;
}

/**
 * The partition of an owner's memory notes: `${owner}#memory#notes`, or `-#memory#notes` when there
 * is no owner. A conversation's key has exactly one `#` (neither an encoded owner nor a conversation
 * id, /^[A-Za-z0-9_-]{1,128}$/, can hold one), so no conversation can ever share it, whatever its id.
 */
export function notesPartitionKey(owner: string | undefined): string {
  return `${owner === undefined ? NO_OWNER : encodeOwner(owner)}#memory#notes`;
}

const encodeOwner = (owner: string): string => encodeURIComponent(owner).replaceAll('-', '%2D');
