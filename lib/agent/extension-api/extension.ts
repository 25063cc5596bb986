/**
 * The public extension API of the loop: how a strategy (a todo list, tool search, a summary of old
 * turns) or a developer's own code takes part in every turn without a branch in the loop.
 *
 *   turnStart ─► [ beforeModelCall ─► aroundModelCall ─► model ─► afterModelReply ─► routeToolCall
 *                  ─► tool control ─► aroundToolCall ─► the call ]* ─► turnEnd
 *
 *   turnStart ─► prepareTurn (once: the system prompt and the earlier turns every call starts from)
 *
 * Extensions run in the order they are given; prepareTurn and beforeModelCall are chained (each gets
 * what the one before returned), aroundModelCall and aroundToolCall are nested (the first is outermost). Built-in tools are ordinary
 * tools to the model and to tool control: offered beside the MCP tools, limited, validated against
 * their schema, and recorded like any other call.
 */
import type { HistoryMessage, TokenUsage, ToolCall } from '../../core/messages.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ModelClient, ModelReply, ModelRequest } from '../../core/ports/model.ts';
import type { ToolDefinition, ToolOutput, ToolProgress } from '../../core/ports/tools.ts';
import type { ToolCallRecord, TurnResult } from '../../core/turn.ts';
import type { CallInput } from '../loop/call-input.ts';

export interface AgentExtension {
  /** Names the extension in logs, and keys its state in each conversation. */
  name: string;
  /** Tools the extension answers itself, offered to the model beside the MCP tools. */
  tools?: BuiltinTool[];
  /** When a turn starts, or a paused turn is taken up again. */
  turnStart?(turn: TurnContext): void | Promise<void>;
  /**
   * Once per turn (a resumed one too), after turnStart and before the first model call: may change
   * the system prompt and the earlier turns that every model call of the turn starts from (each
   * phase of plan-execute included), e.g. put a summary of older turns in place of them. The
   * history returned must keep the invariant (it is checked); the stored turns never change.
   */
  prepareTurn?(plan: TurnPlan, turn: TurnContext): TurnPlan | void | Promise<TurnPlan | void>;
  /**
   * Before each model call: may change the system prompt, the messages and the tools sent (return
   * the changed request). The stored history never changes.
   */
  beforeModelCall?(request: ModelCallPlan, turn: TurnContext): ModelCallPlan | void | Promise<ModelCallPlan | void>;
  /**
   * Around each model call of the turn, every phase of a strategy included (plan-execute's planner
   * and summary too): `request` is exactly what the model client receives, after every
   * beforeModelCall; call `next` to send it. Sees the reply as the model gave it (before call ids
   * are made unique) and a failure as the error `next` throws.
   */
  aroundModelCall?(request: ModelRequest, next: (request: ModelRequest) => Promise<ModelReply>, turn: TurnContext): Promise<ModelReply>;
  /** After each model reply (its calls under the ids they will be answered to), before they are planned. */
  afterModelReply?(reply: ModelReply, turn: TurnContext): void | Promise<void>;
  /**
   * A call as the model made it → the call tool control should plan instead (a routing tool that
   * stands for a real one): limits, policy, arguments and approval then apply to the real tool, and
   * the answer still goes to the model's call. Return nothing to leave the call as it is.
   */
  routeToolCall?(call: ToolCall, turn: TurnContext): ToolCall | undefined;
  /** Around each call that runs: answer it yourself, or call `next` (its MCP server or built-in tool). */
  aroundToolCall?(call: RunningCall, next: () => Promise<ToolOutput>, turn: TurnContext): Promise<ToolOutput>;
  /** When the turn ends (before it is stored); fields returned are added to the turn result. */
  turnEnd?(result: TurnResult, turn: TurnContext): Record<string, unknown> | void | Promise<Record<string, unknown> | void>;
  /** Fields GET /conversations/{id} shows, from this extension's state in the conversation. */
  view?(state: JsonObject): Record<string, unknown>;
}

/** What is about to be sent to the model. */
export interface ModelCallPlan {
  systemPrompt: string;
  /** Earlier turns and this turn so far, after the system prompt. */
  messages: HistoryMessage[];
  tools: ToolDefinition[];
}

/** What a turn starts from: the system prompt and the earlier turns, as every model call sends them. */
export interface TurnPlan {
  systemPrompt: string;
  /** The earlier turns as sent, before this turn's messages: the window unless an extension changed it. */
  history: HistoryMessage[];
  /** The turn's question (its last user message). */
  readonly question: string;
  /** The conversation's earlier turns, whole, to choose from. */
  readonly earlier: EarlierTurns;
}

/**
 * The conversation's complete turns before this one. `window` is what history.maxTokens lets in
 * (the newest whole turns within it, as the default history sends them, without the shortened turn
 * that may stand before them); older turns are read only when asked for.
 */
export interface EarlierTurns {
  /** history.maxTokens. */
  readonly budgetTokens: number;
  /** The newest whole turns within the budget, oldest first. */
  readonly window: readonly EarlierTurn[];
  /**
   * Turns older than the window, newest first, read until `wantsMore` says enough (or the first
   * turn is reached). Turns already read cost nothing; the rest cost one more store Query.
   */
  older(wantsMore: (readSoFar: readonly EarlierTurn[]) => boolean): Promise<EarlierTurn[]>;
}

export interface EarlierTurn {
  turn: number;
  /** Estimated tokens of its messages. */
  tokens: number;
  messages(): HistoryMessage[];
}

export interface TurnContext {
  readonly conversationId: string;
  readonly owner: string | undefined;
  readonly turn: number;
  /** The round under way (0 before the first model call). */
  readonly round: number;
  /** Every tool offered this turn (MCP tools after policy, and built-in tools). */
  readonly tools: readonly ToolDefinition[];
  /** The earlier turns' messages the turn is sent with, as read from the store (before its own). */
  readonly history: readonly HistoryMessage[];
  /**
   * The turn's own messages so far (its question and everything appended to it), as its record
   * stores them: what a strategy's phases send may differ. Read it, never change it (a message a
   * record holds is frozen).
   */
  readonly messages: readonly HistoryMessage[];
  /**
   * The turn's model, for extensions that ask it something themselves (a summary): calls through it
   * count against the turn's budgets. Bound them by timeLeftMs() and count them with addUsage().
   */
  readonly model: ModelClient;
  /** Milliseconds left before the turn must stop to be stored (its deadline less turn.reserveSeconds). */
  timeLeftMs(): number;
  /** Adds the tokens of a model call the extension made itself to the turn's usage. */
  addUsage(usage: TokenUsage): void;
  /**
   * Counts one model round (maxRounds) for a model call made on the turn's behalf (an MCP server's
   * sampling); false, counting nothing, when none is left: then do not call the model.
   */
  takeRound(): boolean;
  /** This extension's state in this conversation: read and change it; it is stored with the turn. */
  state: JsonObject;
  /**
   * This extension's notes for this turn only, never stored. One extension serves many turns at
   * once (the worker runs several): anything about the turn under way belongs here, not in a closure.
   */
  readonly scratch: Record<string, unknown>;
  /** Streams an event to a client watching the turn (an SSE event of this name). */
  emit(event: string, data: unknown): void;
}

export interface BuiltinTool {
  definition: ToolDefinition;
  /**
   * Its calls change what later conversations see (a memory note): under builtInTools.requireApproval
   * `auto` (the default) they need approval whenever any MCP server's tools may need it, so a tool
   * result cannot plant what every later conversation reads without the user saying yes.
   */
  changesLaterConversations?: boolean;
  /** Runs a call; the arguments already match the definition's parameters. Failures are `ok: false`. */
  run(args: JsonObject, call: RunningCall, turn: TurnContext): ToolOutput | Promise<ToolOutput>;
}

/** A call about to run: the model's call id, the tool it runs, and its arguments. */
export interface RunningCall {
  id: string;
  name: string;
  arguments: JsonObject;
  /** The MCP server that serves it; undefined for a built-in tool. */
  server?: string;
  /** Aborts when the call's own timeout or the turn's deadline is reached. */
  signal: AbortSignal;
  timeoutMs: number;
  /** The longest the call may run while its progress keeps extending `timeoutMs`. */
  maxTimeoutMs?: number;
  /** Reports the server's progress: streamed as `tool-progress`, and it extends the call's timeout. */
  onProgress?: (progress: ToolProgress) => void;
  /**
   * The person's answer to what this call's MCP server asked in its earlier run (lib/agent/loop/call-input.ts):
   * set when a paused call runs again.
   */
  input?: CallInput;
  /** The tool policy's decision that let it run (toolPolicy), for the trace. */
  policy?: ToolCallRecord['policy'];
}
