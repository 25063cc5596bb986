/** agent.yml `tools` (limits, timeouts, routing), `builtInTools` and `toolPolicy`: how tools are offered, called and approved. */

import * as z from 'zod';
import { positiveInt, positiveSeconds, seconds, toolPattern } from './shared.ts';

/**
 * `decline` every elicitation; `defaults`: accept with the schema's default values when every
 * required field has one, else decline; `ask`: pause the turn and ask the caller (the call runs
 * again with the answer).
 */
export const elicitationPolicy = z.enum(['decline', 'defaults', 'ask']);

/** agent.yml `tools`: timeouts, limits and routing of the MCP servers' tools. */
export const toolsSchema = z.strictObject({
  /** How long a call may go without an answer, or (when its server reports progress) without progress. */
  callTimeoutSeconds: positiveSeconds().default(30),
  /** The longest a call whose server keeps reporting progress may run in all (never less than callTimeoutSeconds). */
  maxCallSeconds: positiveSeconds().default(300),
  /** A tool result longer than this is cut, with a note saying so, before the model sees it. */
  maxOutputChars: positiveInt().default(16_000),
  /**
   * The tool output one turn carries, all its results together: every round re-sends them, so past
   * this the results that follow are cut (to nothing, when it is used up), with a note saying so.
   */
  maxTurnOutputChars: positiveInt().default(64_000),
  /** A result larger than this is cut off while it arrives, and only that call fails. */
  maxResultBytes: positiveInt().default(1024 * 1024),
  catalogTtlSeconds: seconds().default(300),
  connectTimeoutSeconds: positiveSeconds().default(15),
  /**
   * A server that failed is reconnected in the background: at once after a working session broke,
   * then after 1 s, 2 s, 4 s, ... up to this long between attempts.
   */
  reconnectMaxDelaySeconds: positiveSeconds().default(30),
  /** What to answer a server's elicitation (a question for the user), unless its entry says otherwise. */
  elicitation: elicitationPolicy.default('decline'),
  /** Calls of one model reply beyond this are answered "not executed". */
  maxCallsPerRound: positiveInt().default(16),
  /** Calls of one turn beyond this are answered "not executed". */
  maxCallsPerTurn: positiveInt().default(64),
  /** Calls of one round running at once; the rest wait their turn. */
  maxConcurrentCalls: positiveInt().default(8),
  /**
   * How a large catalog reaches the model: `all` tools every round, `search` (a search_tools tool),
   * `single` (one mcp_query tool), or `auto`: all up to maxOffered tools, search above.
   */
  routing: z.enum(['auto', 'all', 'search', 'single']).default('auto'),
  /** OpenAI's limit on `tools` in one request. */
  maxOffered: positiveInt().default(128),
});

/**
 * Approval for the built-in tools (memory's remember and recall, write_todos, read_resource, the
 * routing tools, an embedding's own): a server's requireApproval values, plus `auto` (default):
 * the built-ins whose calls change what later conversations see (remember) need approval
 * whenever any server's tools may need it (its requireApproval is not `never`); the others none.
 */
export const builtInToolsSchema = z
  .strictObject({
    requireApproval: z.union([z.enum(['auto', 'never', 'always', 'destructive']), z.array(toolPattern)]).default('auto'),
  })
  .prefault({});

/**
 * Who may call which tool with which arguments (docs/policies.md): `cedar`, a Cedar policy file,
 * decides every call (permit, forbid, `@approval("required")`); `schema`, a Cedar schema the
 * policies must validate against at start. Paths are relative to agent.yml.
 */
export const toolPolicySchema = z
  .strictObject({
    cedar: z.string().min(1).optional(),
    schema: z.string().min(1).optional(),
  })
  .superRefine((policy, context) => {
    if (policy.schema !== undefined && policy.cedar === undefined) context.addIssue({ code: 'custom', path: ['schema'], message: 'needs toolPolicy.cedar: the schema validates those policies' });
  })
  .prefault({});
