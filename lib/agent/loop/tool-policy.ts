import type { ToolDefinition } from '../../core/ports/tools.ts';
import { globsMatcher } from '../../core/globs.ts';
import type { BuiltinTool } from '../extension-api/extension.ts';

export { globsMatcher } from '../../core/globs.ts';

/** When a tool's calls wait for approval (agent.yml `requireApproval`): `never`, `always`, `destructive`, or tool patterns. */
type ApprovalRule = 'never' | 'always' | 'destructive' | string[];

/** A server's tool control, as agent.yml sets it for each of `mcpServers`. */
export interface ToolPolicy {
  allowTools?: string[] | undefined;
  denyTools: string[];
  requireApproval: ApprovalRule;
}

/** builtInTools.requireApproval: `auto` asks for the tools that change later conversations when any server's calls need approval. */
type BuiltInApprovalSetting = 'auto' | ApprovalRule;

/** A tool the model is offered, with what tool control needs to know about it. */
export interface OfferedTool extends ToolDefinition {
  /** Its calls wait for a person's approval before they run. */
  needsApproval: boolean;
  /** The server marks it read-only: its calls change nothing, so a round of them needs no record. */
  readOnly: boolean;
  /** Its server may ask a person something while it runs (elicitation or sampling under `ask`): a call may pause the turn. */
  asksUser?: boolean;
}

/** A server's policy, and whether it may ask a person something while a call runs (lib/extensions/mcp/extensions.ts). */
type ServerToolPolicy = ToolPolicy & { asksUser?: boolean };

/** No policy in agent.yml: every tool offered, none needs approval. */
const OPEN_POLICY: ToolPolicy = { denyTools: [], requireApproval: 'never' };

/**
 * What the model is offered: each server's tools that its `allowTools` (default: all) lets through
 * and its `denyTools` does not name, with the approval each needs. Patterns match the name as the
 * server lists it. A tool not offered is never called: a call naming it is an unknown tool.
 */
export function applyToolPolicies(tools: readonly ToolDefinition[], policies: ReadonlyMap<string, ServerToolPolicy>): OfferedTool[] {
  const matchers = new Map([...policies].map(([server, policy]) => [server, compilePolicy(policy)]));
  const open = compilePolicy(OPEN_POLICY);
  return tools.flatMap((tool) => {
    const policy = (tool.server === undefined ? undefined : matchers.get(tool.server)) ?? open;
    const listedName = tool.originalName ?? tool.name;
    if (!policy.offers(listedName)) return [];
    const asksUser = tool.server !== undefined && policies.get(tool.server)?.asksUser === true ? { asksUser: true } : {};
    return [{ ...tool, needsApproval: policy.needsApproval(listedName, tool), readOnly: tool.annotations?.readOnlyHint === true, ...asksUser }];
  });
}

interface CompiledPolicy {
  offers(name: string): boolean;
  needsApproval(name: string, tool: ToolDefinition): boolean;
}

function compilePolicy(policy: ToolPolicy): CompiledPolicy {
  const allowed = policy.allowTools === undefined ? () => true : globsMatcher(policy.allowTools);
  const denied = globsMatcher(policy.denyTools);
  const approval = policy.requireApproval;
  const listed = Array.isArray(approval) ? globsMatcher(approval) : undefined;
  return {
    offers: (name) => allowed(name) && !denied(name),
    needsApproval(name, tool) {
      if (listed) return listed(name);
      if (approval === 'always') return true;
      if (approval === 'never') return false;
      // destructive: unless the server says the tool changes nothing, or nothing irreversibly.
      return !(tool.annotations?.readOnlyHint === true || tool.annotations?.destructiveHint === false);
    },
  };
}

/**
 * Which built-in tools need approval (agent.yml builtInTools.requireApproval), decided like a
 * server's tools: `never`, `always`, `destructive`, or patterns over the built-in names. `auto`:
 * the built-ins that change what later conversations see (remember) need it whenever some server's
 * tools may (its requireApproval is not `never`), since a tool result of such a server could
 * otherwise have the model save what every later conversation reads; the others need none.
 */
export function builtInApproval(setting: BuiltInApprovalSetting, servers: ReadonlyMap<string, ToolPolicy>): (tool: BuiltinTool) => boolean {
  if (setting === 'auto') {
    const anyServerAsks = [...servers.values()].some((policy) => (Array.isArray(policy.requireApproval) ? policy.requireApproval.length > 0 : policy.requireApproval !== 'never'));
    return (tool) => anyServerAsks && tool.changesLaterConversations === true;
  }
  const policy = compilePolicy({ denyTools: [], requireApproval: setting });
  return (tool) => policy.needsApproval(tool.definition.name, tool.definition);
}

/** The server may make a call wait for a person: an elicitation under `ask`, a sampling under `ask`. */
export function asksUser(server: { elicitation?: string | undefined; sampling?: unknown }, tools: { elicitation: string }): boolean {
  return (server.elicitation ?? tools.elicitation) === 'ask' || server.sampling === 'ask';
}
