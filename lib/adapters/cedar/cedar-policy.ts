/**
 * The call policy in Cedar (agent.yml `toolPolicy.cedar`). Each call is one authorization request:
 *
 *   principal  User::"<owner>" (Anonymous::"anonymous" when authentication is off), its attributes
 *              the caller's claims, each under its own name, and `groups`, always a set
 *   action     Action::"CallTool"
 *   resource   Tool::"<server>/<name>" (a built-in tool: Tool::"<name>"), with name, server ("" for
 *              a built-in), builtIn, readOnly, destructive
 *   context    { arguments: the call's arguments } (numbers: cedar-values.ts)
 *
 * Cedar denies unless a permit applies and no forbid does. One rule is added: a forbid that cannot
 * be evaluated for a call (an attribute missing, a type that does not fit) forbids it, where Cedar
 * would skip it; a permit that cannot be evaluated permits nothing, as in Cedar. A permitted call
 * waits for approval when a permit that allowed it is annotated `@approval("required")`.
 */
import { createHash } from 'node:crypto';
import type { CedarValueJson, EntityJson, EntityUidJson } from '@cedar-policy/cedar-wasm/web';
import type { CallPolicy, PolicyDecision, PolicyPrincipal, PolicyTool } from '../../core/ports/call-policy.ts';
import { cedarRecord, cedarValue, groupsOf } from './cedar-values.ts';
import { cedarEngine } from './engine.ts';
import { loadPolicySet, type SourceText } from './policy-set.ts';

export interface CedarPolicyOptions {
  policies: SourceText;
  /** A Cedar schema (.cedarschema text): the policies are validated against it at load. */
  schema?: SourceText;
}

const ACTION: EntityUidJson = { type: 'Action', id: 'CallTool' };
/** Answers of mayPermit kept (a partial evaluation parses the policy set again: milliseconds each), per caller and tool. */
const MAX_KEPT_ANSWERS = 4_096;

/** Loads and checks the policy set (a ConfigError when it does not parse or validate). */
export function createCedarPolicy(options: CedarPolicyOptions): CallPolicy {
  const cedar = cedarEngine();
  const loaded = loadPolicySet(cedar, options.policies, options.schema);
  const hash = createHash('sha256').update(options.policies.text).update('\0').update(options.schema?.text ?? '').digest('hex');
  // Parsed once into the engine, then decided against by id.
  const setId = `tool-policy-${hash}`;
  const prepared = cedar.preparsePolicySet(setId, { staticPolicies: loaded.policies });
  if (prepared.type === 'failure') throw new Error(`Cedar refused the policy set it had parsed: ${prepared.errors.map((error) => error.message).join('; ')}`);
  const isForbid = (id: string) => loaded.effects.get(id) === 'forbid';
  const forbidReason = (id: string) => loaded.annotations.get(id)?.reason ?? `the policy "${id}" forbids it`;
  const kept = new Map<string, boolean>();

  return {
    description: { engine: 'cedar', hash, policies: Object.keys(loaded.policies).length },
    decide(principal, tool, args) {
      const request = requestOf(principal, tool);
      const answer = cedar.statefulIsAuthorized({
        ...request,
        action: ACTION,
        context: { arguments: cedarRecord(args, tool.parameters) },
        preparsedPolicySetId: setId,
      });
      if (answer.type === 'failure') {
        return denied([], [`the policy could not be evaluated for these arguments (${answer.errors.map((error) => error.message).join('; ')})`]);
      }
      const { decision, diagnostics } = answer.response;
      const failedForbids = diagnostics.errors.filter((failure) => isForbid(failure.policyId));
      const failures = failedForbids.map((failure) => `the policy "${failure.policyId}" could not be evaluated for these arguments (${failure.error.message}), which counts as forbidding`);
      if (decision === 'deny') {
        const forbids = diagnostics.reason.filter(isForbid);
        const reasons = [...forbids.map(forbidReason), ...failures];
        return denied([...forbids, ...failedForbids.map((failure) => failure.policyId)], reasons.length > 0 ? reasons : [`no policy permits calling ${tool.name} for this caller`]);
      }
      if (failedForbids.length > 0) return denied(failedForbids.map((failure) => failure.policyId), failures);
      const needsApproval = diagnostics.reason.some((id) => loaded.annotations.get(id)?.approval === 'required');
      return { decision: 'allow', needsApproval, policyIds: diagnostics.reason, reasons: [] };
    },
    mayPermit(principal, tool) {
      const key = JSON.stringify([principal.owner ?? null, principal.claims, tool.server ?? null, tool.name, tool.readOnly, tool.destructive]);
      let permits = kept.get(key);
      if (permits === undefined) {
        if (kept.size >= MAX_KEPT_ANSWERS) kept.clear();
        kept.set(key, (permits = mayPermitAny(principal, tool)));
      }
      return permits;
    },
  };

  function mayPermitAny(principal: PolicyPrincipal, tool: PolicyTool): boolean {
    // Partial evaluation with the arguments unknown: a "deny" that holds whatever they are.
    const answer = cedar.isAuthorizedPartial({
      ...requestOf(principal, tool),
      action: ACTION,
      context: { arguments: { __extn: { fn: 'unknown', arg: 'arguments' } } },
      policies: { staticPolicies: loaded.policies },
    });
    if (answer.type === 'failure') return true;
    if (answer.response.errored.some(isForbid)) return false;
    return answer.response.decision !== 'deny';
  }
}

function denied(policyIds: string[], reasons: string[]): PolicyDecision {
  return { decision: 'deny', needsApproval: false, policyIds, reasons };
}

function requestOf(principal: PolicyPrincipal, tool: PolicyTool): { principal: EntityUidJson; resource: EntityUidJson; entities: EntityJson[] } {
  const principalUid: EntityUidJson = principal.owner === undefined ? { type: 'Anonymous', id: 'anonymous' } : { type: 'User', id: principal.owner };
  const resource: EntityUidJson = { type: 'Tool', id: tool.server === undefined ? tool.name : `${tool.server}/${tool.name}` };
  const claims: Record<string, CedarValueJson> = {};
  for (const [name, value] of Object.entries(principal.claims)) {
    const mapped = cedarValue(value, undefined);
    if (mapped !== undefined) claims[name] = mapped;
  }
  const toolAttributes: Record<string, CedarValueJson> = {
    name: tool.name,
    server: tool.server ?? '',
    builtIn: tool.server === undefined,
    readOnly: tool.readOnly,
    destructive: tool.destructive,
  };
  return {
    principal: principalUid,
    resource,
    entities: [
      { uid: principalUid, attrs: { ...claims, groups: groupsOf(principal.claims) }, parents: [] },
      { uid: resource, attrs: toolAttributes, parents: [] },
    ],
  };
}
