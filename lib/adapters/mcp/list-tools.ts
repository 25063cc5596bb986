/** tools/list across every page, with the server's cache hint when it sends one. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export interface ToolListing {
  tools: Tool[];
  /** A numeric `ttlMs` the server attached to its (last) page, if any. */
  ttlMs?: number;
}

/** A server that keeps sending cursors is cut off here rather than looping for ever. */
const MAXIMUM_PAGES = 100;

export async function listAllTools(client: Client, options: { signal: AbortSignal; timeoutMs: number }): Promise<ToolListing> {
  const tools: Tool[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  for (let page = 0; page < MAXIMUM_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
      signal: options.signal,
      timeout: options.timeoutMs,
    });
    tools.push(...result.tools);
    ttlMs = readTtlMs(result) ?? ttlMs;
    cursor = result.nextCursor;
    if (cursor === undefined || seenCursors.has(cursor)) break;
    seenCursors.add(cursor);
  }
  return ttlMs === undefined ? { tools: distinctByName(tools) } : { tools: distinctByName(tools), ttlMs };
}

/** The result schema keeps unknown fields, so a server's `ttlMs` arrives as is. */
export function readTtlMs(result: { [key: string]: unknown; _meta?: { [key: string]: unknown } }): number | undefined {
  const candidates = [result['ttlMs'], result._meta?.['ttlMs']];
  for (const value of candidates) {
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  }
  return undefined;
}

/** A name listed twice by one server could only ever reach one of the two tools: keep the first. */
function distinctByName(tools: Tool[]): Tool[] {
  const seen = new Set<string>();
  return tools.filter((tool) => {
    if (seen.has(tool.name)) return false;
    seen.add(tool.name);
    return true;
  });
}
