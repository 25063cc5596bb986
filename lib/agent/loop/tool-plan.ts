import { errorMessage } from '../../core/errors.ts';
import type { ToolCall } from '../../core/messages.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CallInput } from './call-input.ts';
import { recordedDecision, type RecordedDecision, type TurnCallPolicy } from './call-policy.ts';
import { toolText } from './tool-messages.ts';
import type { OfferedTool } from './tool-policy.ts';
import { checkArguments } from './validate-arguments.ts';

/**
 * What becomes of each call of a reply, decided before any of them runs, in the order tool control
 * applies: the limits (so nobody is asked to approve a call that could not run), the policy (a
 * tool not offered is unknown), the arguments (JSON, then the tool's inputSchema), the call policy
 * (toolPolicy: who may call it with these arguments), the approval. `policy`: the call policy's
 * decision, kept on the call's record.
 */
export type PlannedCall =
  /** `name`: the tool the call was planned for, when a routing tool stood for it. */
  | { kind: 'refused'; call: ToolCall; arguments: unknown; text: string; name?: string; policy?: RecordedDecision }
  | { kind: 'approval'; call: ToolCall; tool: OfferedTool; arguments: JsonObject; policy?: RecordedDecision }
  /** `input`: a paused call run again, with the person's answer to what it asked (call-input.ts). */
  | { kind: 'run'; call: ToolCall; tool: OfferedTool; arguments: JsonObject; input?: CallInput; policy?: RecordedDecision };

/** The name a call is recorded and shown under: its tool's, which a routed call may not carry itself. */
export const plannedName = (entry: PlannedCall): string => (entry.kind === 'refused' ? entry.name ?? entry.call.name : entry.tool.name);

export interface CallLimits {
  maxCallsPerRound: number;
  maxCallsPerTurn: number;
}

interface PlanContext {
  tools: ReadonlyMap<string, OfferedTool>;
  limits: CallLimits;
  /** Calls the turn made in earlier rounds. */
  callsSoFar: number;
  /** The call to plan for a call the model made (a routing tool stands for a real one). */
  route?: (call: ToolCall) => ToolCall;
  /** The turn's call policy (agent.yml toolPolicy); none: only the servers' own rules apply. */
  policy?: TurnCallPolicy;
}

export function planCalls(calls: readonly ToolCall[], context: PlanContext): PlannedCall[] {
  const { limits } = context;
  return calls.map((call, index): PlannedCall => {
    const target = context.route?.(call) ?? call;
    const parsed = parseArguments(target.arguments);
    const refuse = (text: string): PlannedCall => ({ kind: 'refused', call, arguments: parsed.ok ? parsed.value : target.arguments, text, ...(target !== call ? { name: target.name } : {}) });
    if (index >= limits.maxCallsPerRound) return refuse(toolText.overRoundLimit(calls.length, limits.maxCallsPerRound));
    if (context.callsSoFar + index >= limits.maxCallsPerTurn) return refuse(toolText.overTurnLimit(limits.maxCallsPerTurn));
    const tool = context.tools.get(target.name);
    if (!tool) return refuse(toolText.unknownTool(target.name, [...context.tools.keys()]));
    if (!parsed.ok) return refuse(parsed.reason === 'not-object' ? toolText.notAnObject(target.name) : toolText.invalidJson(target.name, parsed.reason));
    // The schema as its server listed it, which the gateway compiled when it judged the tool (one
    // compile per schema, lib/json-schema/compile.ts); a built-in tool has only its parameters.
    const check = checkArguments(tool.inputSchema ?? tool.parameters, parsed.value);
    if (!check.valid) return refuse(toolText.invalidArguments(target.name, check.problems));
    const decision = context.policy?.decide(tool, parsed.value);
    const policy = decision ? { policy: recordedDecision(decision) } : {};
    if (decision?.decision === 'deny') return { ...refuse(toolText.forbiddenByPolicy(target.name, decision.reasons)), ...policy };
    return { kind: tool.needsApproval || decision?.needsApproval ? 'approval' : 'run', call, tool, arguments: parsed.value, ...policy };
  });
}

type ParsedArguments = { ok: true; value: JsonObject } | { ok: false; reason: string };

/** The model's arguments text, parsed once: what runs, what is recorded and what is streamed. */
export function parseArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: errorMessage(error) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'not-object' };
  return { ok: true, value: value as JsonObject };
}

/** The arguments as a turn result shows them: parsed when they are JSON, else the raw text. */
export function shownArguments(text: string): unknown {
  const parsed = parseArguments(text);
  if (parsed.ok) return parsed.value;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
