/**
 * Tool-use ids as Converse accepts them: `[a-zA-Z0-9_-]{1,64}`, unique in the request. Ids that
 * other providers wrote (`call_7Ujk…` passes; Kimi's `functions.getWeather:0`, ids with spaces,
 * slashes or 80 characters do not) are re-encoded on the way out only: the stored conversation
 * keeps them as they were, so it can go back to the provider that wrote them.
 *
 * The encoding is deterministic (the same history gives the same request, and a call and its
 * result always get the same wire id) and keeps a readable prefix:
 *
 *   functions.getWeather:0   →   functions_getWeather_0_1f3a9c2e   (sha-256 of the original, 8 hex)
 *
 * `fromWire` maps a wire id back to the id it stands for, for anything Bedrock names by it.
 */
import { createHash } from 'node:crypto';

const VALID_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const HASH_LENGTH = 8;

export interface ToolUseIds {
  /** The wire id for a call of the current assistant message (a fresh one if the id was used before). */
  forCall(id: string): string;
  /** The wire id of the latest call with this id: what its tool result answers. */
  forResult(id: string): string;
  fromWire(wireId: string): string;
}

export function createToolUseIds(): ToolUseIds {
  const latest = new Map<string, string>();
  const originals = new Map<string, string>();
  const taken = new Set<string>();

  const claim = (original: string, candidate: string): string => {
    // A repeated id (stateless callers, providers numbering calls per reply) gets a counted suffix:
    // Converse refuses two toolUse blocks with one id.
    let wireId = candidate;
    for (let count = 2; taken.has(wireId); count += 1) wireId = withSuffix(candidate, `_${count}`);
    taken.add(wireId);
    latest.set(original, wireId);
    originals.set(wireId, original);
    return wireId;
  };

  return {
    forCall: (id) => claim(id, encode(id)),
    forResult: (id) => latest.get(id) ?? encode(id),
    fromWire: (wireId) => originals.get(wireId) ?? wireId,
  };
}

/** The id itself when Converse accepts it; otherwise its valid characters and a hash of it. */
export function encode(id: string): string {
  if (VALID_ID.test(id)) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, HASH_LENGTH);
  const readable = id.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return withSuffix(readable, readable === '' ? hash : `_${hash}`);
}

const withSuffix = (base: string, suffix: string): string => `${base.slice(0, 64 - suffix.length)}${suffix}`;
