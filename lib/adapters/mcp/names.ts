/**
 * Model-facing tool names. The model API accepts only `^[a-zA-Z0-9_-]{1,64}$`, and one catalog
 * spans several servers, so a name is kept as the server wrote it only when it is valid and no other
 * server lists the same name. Every other tool gets `server__tool`, sanitized, and a short hash of
 * its (server, tool) pair when that is still too long or collides.
 *
 * The result depends only on the set of (server, tool) pairs, never on their order, so the same
 * catalog yields the same names whichever server answered first.
 */
import { createHash } from 'node:crypto';

const MODEL_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAXIMUM_LENGTH = 64;
const HASH_LENGTH = 8;

export interface ServerToolNames {
  server: string;
  tools: string[];
}

interface AssignedToolName {
  /** The name the model sees and calls. */
  name: string;
  server: string;
  /** The name the server listed, used for tools/call. */
  originalName: string;
}

export function isValidModelToolName(name: string): boolean {
  return MODEL_TOOL_NAME_PATTERN.test(name);
}

/** One entry per distinct (server, tool) pair, in input order. */
export function assignToolNames(catalog: ServerToolNames[]): AssignedToolName[] {
  const pairs = distinctPairs(catalog);
  const serversPerTool = new Map<string, number>();
  for (const pair of pairs) serversPerTool.set(pair.tool, (serversPerTool.get(pair.tool) ?? 0) + 1);

  const kept = new Set<string>();
  for (const pair of pairs) {
    if (isValidModelToolName(pair.tool) && serversPerTool.get(pair.tool) === 1) kept.add(pair.tool);
  }

  // Names that must be generated, first as plain `server__tool`.
  const generated = new Map<string, string>();
  const candidateCounts = new Map<string, number>();
  for (const pair of pairs) {
    if (kept.has(pair.tool)) continue;
    const candidate = fitLength(sanitize(`${pair.server}__${pair.tool}`), pair);
    generated.set(pair.key, candidate);
    candidateCounts.set(candidate, (candidateCounts.get(candidate) ?? 0) + 1);
  }

  // A generated name that clashes with a kept name or another generated one takes a hash suffix;
  // kept names always win because the server chose them.
  const taken = new Set(kept);
  const clashing: Pair[] = [];
  for (const pair of pairs) {
    const candidate = generated.get(pair.key);
    if (candidate === undefined) continue;
    if (kept.has(candidate) || candidateCounts.get(candidate) !== 1) clashing.push(pair);
    else taken.add(candidate);
  }
  // Sorted by key so the rare double clash is settled the same way for any input order.
  clashing.sort((left, right) => (left.key < right.key ? -1 : left.key > right.key ? 1 : 0));
  for (const pair of clashing) {
    let salt = 0;
    let name = withHash(sanitize(`${pair.server}__${pair.tool}`), pair, salt);
    while (taken.has(name)) name = withHash(sanitize(`${pair.server}__${pair.tool}`), pair, ++salt);
    taken.add(name);
    generated.set(pair.key, name);
  }

  return pairs.map((pair) => ({
    name: generated.get(pair.key) ?? pair.tool,
    server: pair.server,
    originalName: pair.tool,
  }));
}

interface Pair {
  server: string;
  tool: string;
  /** Unambiguous identity of the pair (server names cannot contain NUL in practice). */
  key: string;
}

function distinctPairs(catalog: ServerToolNames[]): Pair[] {
  const seen = new Set<string>();
  const pairs: Pair[] = [];
  for (const entry of catalog) {
    for (const tool of entry.tools) {
      const key = `${entry.server}\u0000${tool}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pairs.push({ server: entry.server, tool, key });
    }
  }
  return pairs;
}

function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function fitLength(name: string, pair: Pair): string {
  return name.length <= MAXIMUM_LENGTH ? name : withHash(name, pair, 0);
}

function withHash(name: string, pair: Pair, salt: number): string {
  const digest = createHash('sha256').update(`${pair.key}\u0000${salt}`).digest('hex').slice(0, HASH_LENGTH);
  return `${name.slice(0, MAXIMUM_LENGTH - HASH_LENGTH - 1)}_${digest}`;
}
