import { addUsage as sumUsage } from '../../core/budget.ts';
import { historyViolations } from '../../core/history.ts';
import type { HistoryMessage, TokenUsage, ToolCall } from '../../core/messages.ts';
import type { ConversationState } from '../../core/ports/conversation-store.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ModelClient, ModelReply, ModelRequest } from '../../core/ports/model.ts';
import type { ToolGateway, ToolOutput } from '../../core/ports/tools.ts';
import type { TurnResult } from '../../core/turn.ts';
import type { LoopEvent } from '../loop/loop-events.ts';
import type { AgentExtension, BuiltinTool, ModelCallPlan, RunningCall, TurnContext, TurnPlan } from './extension.ts';
import type { OfferedTool } from '../loop/tool-policy.ts';
import type { TurnCallPolicy } from '../loop/call-policy.ts';
import { copyJson, copyState } from '../../core/state-copy.ts';

export type { ConversationState } from '../../core/ports/conversation-store.ts';

/** What the loop asks of the extensions: the only way they reach into a round. */
export interface LoopHooks {
  prepareModelCall(plan: ModelCallPlan, round: number): Promise<ModelCallPlan>;
  replied(reply: ModelReply, round: number): Promise<void>;
  /** The call tool control plans for a call the model made (itself, unless routed). */
  route(call: ToolCall): ToolCall;
  /** Runs a planned call: a built-in tool or an MCP tool, through every aroundToolCall. */
  runTool(call: RunningCall, tool: OfferedTool): Promise<ToolOutput>;
  /** The turn's call policy (agent.yml toolPolicy), which decides every call tool control plans. */
  readonly callPolicy?: TurnCallPolicy;
}

export interface ExtensionRunner extends LoopHooks {
  /** Every tool offered this turn: the MCP tools after policy, then the built-in tools. */
  readonly tools: OfferedTool[];
  /** The turn's model, each call through every aroundModelCall: what the turn's loops call. */
  readonly model: ModelClient;
  /** The state kept under `name` in the conversation (an extension's or the turn strategy's): live, changes are stored. */
  stateOf(name: string): JsonObject;
  turnStart(): Promise<void>;
  /** The system prompt and earlier turns the turn starts from, as the extensions leave them. */
  prepareTurn(plan: TurnPlan): Promise<TurnPlan>;
  /** The tokens of model calls the extensions made themselves since the last time asked (then zero again). */
  takeUsage(): TokenUsage;
  /** Fields the extensions add to the turn result. */
  turnEnd(result: TurnResult): Promise<Record<string, unknown>>;
  /** The conversation's state as it stands now, to store with the turn. */
  state(): ConversationState;
}

interface ExtensionRunnerInput {
  extensions: readonly AgentExtension[];
  /** MCP tools after policy. */
  mcpTools: readonly OfferedTool[];
  gateway: ToolGateway;
  model: ModelClient;
  conversationId: string;
  owner?: string;
  turn: number;
  /** The conversation's state when the turn starts (from its newest turn). */
  state: ConversationState;
  /** Epoch ms by which the turn must be stored (none: no limit), and the time kept back for storing it. */
  deadlineAt?: number;
  reserveMs?: number;
  now?: () => number;
  /** The earlier turns' messages the turn is sent with. */
  history?: readonly HistoryMessage[];
  /** The turn's own messages as they stand (its draft's): TurnContext.messages. */
  turnMessages?: () => readonly HistoryMessage[];
  onEvent?: (event: LoopEvent) => void;
  /** Counts a round for a model call an extension makes (TurnContext.takeRound); without it none is counted. */
  takeRound?: () => boolean;
  /** Whether a built-in tool's calls wait for approval (builtInApproval in tool-policy.ts); without it none do. */
  builtInNeedsApproval?: (tool: BuiltinTool) => boolean;
  /** The call policy bound to the turn's caller: tools it could never permit are not offered, and it decides each call. */
  callPolicy?: TurnCallPolicy;
}

/** The extensions of one turn, composed. Without extensions it passes every call straight through. */
export function createExtensionRunner(input: ExtensionRunnerInput): ExtensionRunner {
  const { extensions, gateway } = input;
  const state: ConversationState = copyJson(input.state);
  const builtins = new Map<string, BuiltinTool>();
  for (const extension of extensions) for (const tool of extension.tools ?? []) builtins.set(tool.definition.name, tool);
  // A built-in tool's name is the extension's to keep: an MCP tool of the same name is not offered.
  const allTools: OfferedTool[] = [
    ...input.mcpTools.filter((tool) => !builtins.has(tool.name)),
    ...[...builtins.values()].map((tool) => ({ ...tool.definition, needsApproval: input.builtInNeedsApproval?.(tool) ?? false, readOnly: tool.definition.annotations?.readOnlyHint === true })),
  ];
  const { callPolicy } = input;
  const tools = callPolicy ? allTools.filter((tool) => callPolicy.offers(tool)) : allTools;
  let round = 0;
  let usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const now = input.now ?? Date.now;
  const contexts = new Map(extensions.map((extension) => [extension.name, contextFor(extension)]));
  const context = (extension: AgentExtension) => contexts.get(extension.name)!;

  function contextFor(extension: AgentExtension): TurnContext {
    const scratch: Record<string, unknown> = {};
    return {
      scratch,
      conversationId: input.conversationId,
      owner: input.owner,
      turn: input.turn,
      get round() {
        return round;
      },
      tools,
      history: input.history ?? [],
      get messages() {
        return input.turnMessages?.() ?? [];
      },
      model: input.model,
      timeLeftMs: () => (input.deadlineAt ?? Number.POSITIVE_INFINITY) - (input.reserveMs ?? 0) - now(),
      addUsage: (more) => {
        usage = sumUsage(usage, more);
      },
      takeRound: input.takeRound ?? (() => true),
      get state() {
        return (state[extension.name] ??= {});
      },
      set state(value: JsonObject) {
        state[extension.name] = value;
      },
      emit: (event, data) => input.onEvent?.({ type: 'extension', name: checkedEventName(event, extension.name), data }),
    };
  }

  const builtinOwner = new Map<string, AgentExtension>();
  for (const extension of extensions) for (const tool of extension.tools ?? []) builtinOwner.set(tool.definition.name, extension);

  // The first extension is outermost: each wraps what the ones after it (and the model) do.
  const observers = extensions.filter((extension) => extension.aroundModelCall);
  const model: ModelClient = observers.length === 0 ? input.model : {
    complete: (request) => {
      const innermost = (sent: ModelRequest) => input.model.complete(sent);
      const wrapped = observers.reduceRight<(sent: ModelRequest) => Promise<ModelReply>>(
        (next, extension) => (sent) => extension.aroundModelCall!(sent, next, context(extension)),
        innermost,
      );
      return wrapped(request);
    },
  };

  return {
    tools,
    model,
    ...(callPolicy ? { callPolicy } : {}),
    stateOf: (name) => (state[name] ??= {}),
    async turnStart() {
      for (const extension of extensions) if (extension.turnStart) await extension.turnStart(context(extension));
    },
    async prepareTurn(plan) {
      let prepared = plan;
      for (const extension of extensions) {
        if (!extension.prepareTurn) continue;
        const changed = await extension.prepareTurn(prepared, context(extension));
        if (!changed) continue;
        // A history that breaks the invariant would be refused by the provider on every later turn too.
        const violations = historyViolations(changed.history);
        if (violations.length > 0) throw new Error(`extension "${extension.name}" prepared a history that breaks the invariant: ${violations.join('; ')}`);
        prepared = { ...changed, question: plan.question, earlier: plan.earlier };
      }
      return prepared;
    },
    takeUsage() {
      const taken = usage;
      usage = { promptTokens: 0, completionTokens: 0 };
      return taken;
    },
    async prepareModelCall(plan, current) {
      round = current;
      let prepared = plan;
      // Only the hooks an extension has are awaited: an await of nothing is a promise and a tick every round.
      for (const extension of extensions) if (extension.beforeModelCall) prepared = (await extension.beforeModelCall(prepared, context(extension))) ?? prepared;
      return prepared;
    },
    async replied(reply) {
      for (const extension of extensions) if (extension.afterModelReply) await extension.afterModelReply(reply, context(extension));
    },
    route(call) {
      for (const extension of extensions) {
        const routed = extension.routeToolCall?.(call, context(extension));
        if (routed) return routed;
      }
      return call;
    },
    runTool(call, tool) {
      const builtin = builtins.get(tool.name);
      const innermost = (): Promise<ToolOutput> =>
        builtin
          ? Promise.resolve(builtin.run(call.arguments, call, context(builtinOwner.get(tool.name)!)))
          : gateway.callTool(call.name, call.arguments, {
              signal: call.signal,
              timeoutMs: call.timeoutMs,
              ...(call.maxTimeoutMs === undefined ? {} : { maxTimeoutMs: call.maxTimeoutMs }),
              ...(call.onProgress ? { onProgress: call.onProgress } : {}),
              caller: { conversationId: input.conversationId, ...(input.owner ? { owner: input.owner } : {}) },
            });
      // The first extension is outermost: each wraps what the ones after it (and the call) do.
      const wrapped = extensions.reduceRight<() => Promise<ToolOutput>>(
        (next, extension) => (extension.aroundToolCall ? () => extension.aroundToolCall!(call, next, context(extension)) : next),
        innermost,
      );
      return wrapped();
    },
    async turnEnd(result) {
      const fields: Record<string, unknown> = {};
      for (const extension of extensions) if (extension.turnEnd) Object.assign(fields, await extension.turnEnd(result, context(extension)));
      return fields;
    },
    state: () => copyState(state),
  };
}

/** Events the service itself sends: an extension's event may not pose as one of them. */
const RESERVED_EVENTS = new Set(['round-start', 'text-delta', 'reasoning-delta', 'tool-call', 'tool-progress', 'tool-result', 'approval-required', 'elicitation-required', 'reflection', 'turn-end', 'error', 'message']);

function checkedEventName(event: string, extension: string): string {
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(event) || RESERVED_EVENTS.has(event)) {
    throw new Error(`extension "${extension}" emitted the event "${event}": use a lower-case name of letters, digits and "-" that the service does not use itself`);
  }
  return event;
}
