/**
 * The port of a policy over who calls which tool with which arguments (agent.yml `toolPolicy`):
 * asked before every call, whatever tool it names (an MCP tool, a routed call, a built-in tool).
 * lib/adapters/cedar decides with Cedar policies. The agent sees only this.
 *
 * Synchronous: the policy set is loaded when the agent is built, and each decision is local.
 */
import type { JsonObject } from '../json.ts';

/** Who calls: the conversation's owner (none when authentication is off) and what the caller's identity claims say. */
export interface PolicyPrincipal {
  owner?: string;
  /** The verified claims of the caller's token (groups, tenant, …), as the HTTP layer read them; empty when there are none. */
  claims: JsonObject;
}

/** The tool a call names, as the policy sees it. */
export interface PolicyTool {
  /** The name as its server lists it (a built-in tool's own name). */
  name: string;
  /** The MCP server that serves it; absent for a built-in tool. */
  server?: string;
  /** The server says it changes nothing (MCP readOnlyHint). */
  readOnly: boolean;
  /** The server says it may destroy or irreversibly change something (MCP destructiveHint, true unless read-only or said otherwise). */
  destructive: boolean;
  /** The tool's inputSchema: how its arguments are typed for the policy. */
  parameters: JsonObject;
}

export interface PolicyDecision {
  decision: 'allow' | 'deny';
  /** A permitted call waits for a person's approval first (a determining policy asks for it). */
  needsApproval: boolean;
  /** The policies that decided: the permits that allowed, or the forbids (and failed forbids) that denied. */
  policyIds: string[];
  /** Why a call is denied, in words the model reads; empty when allowed. */
  reasons: string[];
}

export interface CallPolicy {
  /** Decides one call with its arguments. */
  decide(principal: PolicyPrincipal, tool: PolicyTool, args: JsonObject): PolicyDecision;
  /**
   * False only when no call of this tool could be permitted for this principal, whatever its
   * arguments: such a tool is not offered. True when unsure (every call is decided anyway).
   */
  mayPermit(principal: PolicyPrincipal, tool: PolicyTool): boolean;
  /** Names the policy set as loaded (a hash of its text), for /health. */
  readonly description: { engine: string; hash: string; policies: number };
}
