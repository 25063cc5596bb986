import { hash } from 'node:crypto';
import type { HistoryMessage } from '../../core/messages.ts';
import type { ApprovalDecision } from './validate-input.ts';

/**
 * What a requestId stands for: a digest of the request that first used it, stored with its turn.
 * A requestId replays its stored turn only to that same request. Without this, anyone who learns
 * or guesses a requestId (without authentication, or a caller reusing one by mistake) would get
 * another request's turn, its conversation id and so the whole conversation, whatever they sent.
 *
 * A plain hash is enough: the turn it is stored with holds the request itself.
 */
export function askDigest(request: { message: string; instructions?: string | undefined; earlierMessages?: readonly HistoryMessage[] | undefined; responseFormat?: unknown }): string {
  // The format only when asked for: digests of requests without one stay as they were stored.
  return digestOf(['ask', request.message, request.instructions ?? null, request.earlierMessages ?? null, ...(request.responseFormat === undefined ? [] : [request.responseFormat])]);
}

/** Decisions are a set: the same decisions in another order are the same request. */
export function decideDigest(decisions: readonly ApprovalDecision[]): string {
  const sorted = [...decisions].sort((a, b) => (a.toolCallId < b.toolCallId ? -1 : a.toolCallId > b.toolCallId ? 1 : 0));
  return digestOf(['decide', sorted]);
}

/** Whether a stored turn was made by another request under this id; turns stored without digests (before them) were not. */
export function requestReused(stored: Readonly<Record<string, string>> | undefined, requestId: string, digest: string | undefined): boolean {
  const made = stored?.[requestId];
  return made !== undefined && digest !== undefined && made !== digest;
}

/** One call (crypto.hash), not a Hash object: this runs for every request, and the object cost several times more. */
function digestOf(value: unknown): string {
  return hash('sha256', canonicalJson(value), 'base64url');
}

/** JSON with object keys sorted, so equal requests give equal text whatever their keys' order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, field]) => field !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
