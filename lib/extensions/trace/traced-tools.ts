import type { ToolDefinition } from '../../core/ports/tools.ts';
import type { TraceTool } from '../../core/turn-trace.ts';
import { traceTool, type TraceContents } from './shape.ts';

/**
 * Each tool as the trace keeps it, and its JSON, from one turn to the next. A turn's trace
 * converts, freezes and serializes every tool it offers (a copy of each schema), and every turn
 * offers the same tools again: the gateway lists them once, and each turn makes new definitions
 * around the same schema objects. With tens of tools of sizeable schemas that was most of a turn's
 * trace, so a traced tool is kept while its definition's schema object lives (a WeakMap on it), and
 * given again when the name, description and trace.contents are the same too. A schema object is
 * not changed once offered: a server's new listing makes new ones (lib/adapters/mcp/list-tools.ts).
 */
interface Traced {
  name: string;
  description: string;
  contents: TraceContents;
  tool: TraceTool;
}

const bySchema = new WeakMap<object, Traced>();
/** The JSON of a traced tool, for the book's pool: serialized once, when it was converted. */
const jsonOf = new WeakMap<TraceTool, string>();

export function tracedTool(tool: ToolDefinition, contents: TraceContents): TraceTool {
  const kept = bySchema.get(tool.parameters);
  if (kept && kept.name === tool.name && kept.description === tool.description && kept.contents === contents) return kept.tool;
  const traced = traceTool(tool, contents);
  bySchema.set(tool.parameters, { name: tool.name, description: tool.description, contents, tool: traced });
  jsonOf.set(traced, JSON.stringify(traced));
  return traced;
}

/** A traced tool's JSON, if tracedTool made it. */
export const tracedToolJson = (tool: TraceTool): string | undefined => jsonOf.get(tool);
