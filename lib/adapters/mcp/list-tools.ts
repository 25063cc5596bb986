/**
 * tools/list across every page, each tool judged on its own. The SDK's listTools() parses the
 * whole page with one schema, so a single malformed tool would take every tool of its server away;
 * here the page is read leniently and each tool is checked alone: its shape (the SDK's ToolSchema),
 * its inputSchema and outputSchema (compiled, compile.ts), and whether it can run at all (a tool
 * that requires MCP tasks on a server that offers none cannot), and in the stateless era its
 * `x-mcp-header` declarations (param-headers.ts). A tool that fails is left out with
 * its reason; the others stay. Accepted input schemas are fitted for model APIs here, once per
 * listing (fit.ts).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { JsonObject } from '../../core/json.ts';
import { compileSchema } from './schema/compile.ts';
import { fitSchemaForModel } from './schema/fit.ts';
import { headerParametersOf } from '#mcp-remote';
import type { HeaderParameter } from './stateless/param-headers.ts';

export interface ListedTool {
  tool: Tool;
  /** The inputSchema fitted for model APIs. */
  parameters: JsonObject;
  /** The tool runs only as an MCP task (`execution.taskSupport: "required"`). */
  requiresTask: boolean;
  /** The arguments its calls carry as `Mcp-Param-*` headers (stateless era, SEP-2243); absent when none. */
  headerParameters?: HeaderParameter[];
}

export interface SkippedTool {
  name: string;
  reason: string;
}

interface ToolListing {
  tools: ListedTool[];
  skipped: SkippedTool[];
  /** A numeric `ttlMs` the server attached to its (last) page, if any. */
  ttlMs?: number;
}

interface ListOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** The server declared `tasks.requests.tools.call`: task-required tools can run. */
  tasksSupported: boolean;
  /** The connection mirrors `x-mcp-header` arguments in headers (stateless era over HTTP): declarations are judged. */
  headerParameters?: boolean;
}

/** A server that keeps sending cursors is cut off here rather than looping for ever. */
const MAXIMUM_PAGES = 100;

/** A page as it arrives: its tools are judged one by one below. */
const LenientPageSchema = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

export async function listAllTools(client: Client, options: ListOptions): Promise<ToolListing> {
  const raw: unknown[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  for (let page = 0; page < MAXIMUM_PAGES; page++) {
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      LenientPageSchema,
      { signal: options.signal, timeout: options.timeoutMs },
    );
    raw.push(...result.tools);
    ttlMs = readTtlMs(result) ?? ttlMs;
    cursor = result.nextCursor;
    if (cursor === undefined || seenCursors.has(cursor)) break;
    seenCursors.add(cursor);
  }
  const listing = judgeTools(raw, options.tasksSupported, options.headerParameters ?? false);
  rememberToolMetadata(client, listing.tools.map((entry) => entry.tool));
  return ttlMs === undefined ? listing : { ...listing, ttlMs };
}

/** Splits what a server listed into the tools that can be offered and those left out, with why. */
export function judgeTools(raw: unknown[], tasksSupported: boolean, headerParameters = false): Omit<ToolListing, 'ttlMs'> {
  const tools: ListedTool[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  for (const entry of raw) {
    const name = nameOf(entry);
    const verdict = judgeTool(entry, tasksSupported, headerParameters);
    if ('reason' in verdict) {
      skipped.push({ name, reason: verdict.reason });
      continue;
    }
    // A name listed twice could only ever reach one of the two tools: keep the first.
    if (seen.has(verdict.tool.name)) continue;
    seen.add(verdict.tool.name);
    tools.push(verdict);
  }
  return { tools, skipped };
}

function judgeTool(entry: unknown, tasksSupported: boolean, headerParameters: boolean): ListedTool | { reason: string } {
  const parsed = ToolSchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? issue.path.join('.') : 'the tool';
    return { reason: `${at}: ${issue?.message ?? 'is not a valid tool definition'}` };
  }
  const tool = parsed.data as Tool;
  const input = compileSchema(tool.inputSchema as JsonObject);
  if ('error' in input) return { reason: `inputSchema is not valid JSON Schema: ${input.error}` };
  if (tool.outputSchema) {
    const output = compileSchema(tool.outputSchema as JsonObject);
    if ('error' in output) return { reason: `outputSchema is not valid JSON Schema: ${output.error}` };
  }
  const requiresTask = tool.execution?.taskSupport === 'required';
  if (requiresTask && !tasksSupported) {
    return { reason: 'it requires task-based execution (execution.taskSupport: "required"), and the server does not offer tasks for tools/call' };
  }
  // A header declaration the spec forbids makes the tool one a client must not call (SEP-2243).
  const headers = headerParameters ? headerParametersOf(tool.inputSchema as JsonObject) : [];
  if ('error' in headers) return { reason: `inputSchema has an invalid x-mcp-header declaration: ${headers.error}` };
  return { tool, parameters: fitSchemaForModel(tool.inputSchema as JsonObject), requiresTask, ...(headers.length > 0 ? { headerParameters: headers } : {}) };
}

function nameOf(entry: unknown): string {
  const name = typeof entry === 'object' && entry !== null ? (entry as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? name : '(unnamed)';
}

/**
 * The SDK checks a result's structuredContent against its tool's outputSchema, and knows which
 * tools are task tools, from what its own listTools() saw. That method is bypassed here, so the
 * accepted tools are handed over the same way it does; only tools whose schemas compiled, so it
 * never throws. Checked, so an SDK update that renames it fails loudly instead of silently.
 */
function rememberToolMetadata(client: Client, tools: Tool[]): void {
  const remember: unknown = Reflect.get(client, 'cacheToolMetadata');
  if (typeof remember !== 'function') {
    throw new Error('this MCP SDK version no longer has Client.cacheToolMetadata; list-tools.ts needs updating');
  }
  remember.call(client, tools);
}

/** The result schema keeps unknown fields, so a server's `ttlMs` arrives as is. */
function readTtlMs(result: { [key: string]: unknown; _meta?: unknown }): number | undefined {
  const meta = typeof result._meta === 'object' && result._meta !== null ? (result._meta as Record<string, unknown>) : {};
  const candidates = [result['ttlMs'], meta['ttlMs']];
  for (const value of candidates) {
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  }
  return undefined;
}
