import type { Logger } from '../../core/logger.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CallPolicy, PolicyDecision, PolicyPrincipal, PolicyTool } from '../../core/ports/call-policy.ts';
import type { ToolCallRecord } from '../../core/turn.ts';
import type { ToolDefinition } from '../../core/ports/tools.ts';

/**
 * The call policy (agent.yml `toolPolicy`, lib/core/ports/call-policy.ts) bound to one turn's
 * caller: which tools the turn offers at all, and the decision on each call, made where tool
 * control plans the calls (tool-plan.ts), whichever strategy runs the loop and whatever tool the
 * call names (an MCP tool, the tool a routed call stands for, a built-in tool).
 */
export interface TurnCallPolicy {
  /** False when no call of the tool could be permitted for this caller: it is not offered. */
  offers(tool: ToolDefinition): boolean;
  decide(tool: ToolDefinition, args: JsonObject): PolicyDecision;
}

/** What a call's record keeps of its decision (ToolCallRecord.policy). */
export type RecordedDecision = NonNullable<ToolCallRecord['policy']>;

export function turnCallPolicy(policy: CallPolicy, principal: PolicyPrincipal, logger: Logger): TurnCallPolicy {
  const offered = new Map<string, boolean>();
  return {
    offers(tool) {
      const key = `${tool.server ?? ''}/${tool.originalName ?? tool.name}`;
      let offers = offered.get(key);
      if (offers === undefined) offered.set(key, (offers = policy.mayPermit(principal, policyToolOf(tool))));
      return offers;
    },
    decide(tool, args) {
      const decision = policy.decide(principal, policyToolOf(tool), args);
      // Who was refused what, by which policies: never the arguments (they may be personal data).
      logger.info('tool call decided by policy', { tool: tool.name, ...(tool.server ? { server: tool.server } : {}), decision: decision.decision, needsApproval: decision.needsApproval, policyIds: decision.policyIds });
      return decision;
    },
  };
}

export function recordedDecision(decision: PolicyDecision): RecordedDecision {
  return { decision: decision.decision, policyIds: decision.policyIds, ...(decision.needsApproval ? { needsApproval: true } : {}) };
}

/** A tool as the policy sees it: the name its server lists, and what its annotations say. */
export function policyToolOf(tool: ToolDefinition): PolicyTool {
  const readOnly = tool.annotations?.readOnlyHint === true;
  return {
    name: tool.originalName ?? tool.name,
    ...(tool.server === undefined ? {} : { server: tool.server }),
    readOnly,
    // MCP's default: a tool that is not read-only may be destructive unless it says otherwise.
    destructive: !readOnly && tool.annotations?.destructiveHint !== false,
    parameters: tool.parameters,
  };
}
