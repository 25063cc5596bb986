import type { ConversationKey } from '../../core/ports/conversation-store.ts';

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
  return `${ownerPart(key.owner)}#${key.conversationId}`;
}

/**
 * The partition keys of an owner's budget counters (lib/adapters/dynamodb/owner-counters.ts):
 * `tokens:<owner>` holds one item per UTC day (sort key: the day's number), `turns:<owner>` one
 * item per turn slot (sort key: its index). Neither contains `#`, which every conversation's key
 * does, so no conversation id, of any owner, can ever name them; and the owner is encoded as above,
 * so no owner can name another's.
 */
export const ownerTokensPartitionKey = (owner: string | undefined): string => `tokens:${ownerPart(owner)}`;
export const ownerTurnsPartitionKey = (owner: string): string => `turns:${ownerPart(owner)}`;

const ownerPart = (owner: string | undefined): string => (owner === undefined ? NO_OWNER : encodeOwner(owner));

/**
 * The partition of an owner's memory notes: `${owner}#memory#notes`, or `-#memory#notes` when there
 * is no owner. A conversation's key has exactly one `#` (neither an encoded owner nor a conversation
 * id, /^[A-Za-z0-9_-]{1,128}$/, can hold one), so no conversation can ever share it, whatever its id.
 */
export function notesPartitionKey(owner: string | undefined): string {
  return `${ownerPart(owner)}#memory#notes`;
}

const encodeOwner = (owner: string): string => encodeURIComponent(owner).replaceAll('-', '%2D');

/**
 * Per-user connections (lib/adapters/dynamodb/connection-store.ts). An owner's tokens for a server:
 * `${owner}#connections#${server}` (server names hold no `#`, so this has three `#` where a
 * conversation's key has one and the notes' key ends in `#memory#notes`). What belongs to no owner
 * has no `#` at all: a pending authorization `connect-state:<hash of its state>`, a server's
 * registered client `connection-client:<server>`, its tool catalog `connection-catalog:<server>`.
 */
export const connectionPartitionKey = (owner: string | undefined, server: string): string => `${ownerPart(owner)}#connections#${server}`;
export const pendingAuthorizationPartitionKey = (stateHash: string): string => `connect-state:${stateHash}`;
export const connectionClientPartitionKey = (server: string): string => `connection-client:${server}`;
export const connectionCatalogPartitionKey = (server: string): string => `connection-catalog:${server}`;
