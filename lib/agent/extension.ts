/**
 * The public extension API of the loop: how a strategy (a todo list, tool search, a summary of old
 * turns) or a developer's own code takes part in every turn without a branch in the loop.
 *
 *   turnStart ─► [ beforeModelCall ─► aroundModelCall ─► model ─► afterModelReply ─► routeToolCall
 *                  ─► tool control ─► aroundToolCall ─► the call ]* ─► turnEnd
 *
 * Extensions run in the order they are given; beforeModelCall is chained (each gets what the one
 * before returned), aroundModelCall and aroundToolCall are nested (the first is outermost). Built-in tools are ordinary
 * tools to the model and to tool control: offered beside the MCP tools, limited, validated against
 * their schema, and recorded like any other call.
 */
import type { HistoryMessage, ToolCall } from '../core/messages.ts';
import type { JsonObject, ModelClient, ModelReply, ModelRequest, ToolDefinition, ToolOutput } from '../core/ports.ts';
import type { TurnResult } from '../core/turn.ts';

export interface AgentExtension {
  /** Names the extension in logs, and keys its state in each conversation. */
  name: string;
  /** Tools the extension answers itself, offered to the model beside the MCP tools. */
  tools?: BuiltinTool[];
  /** When a turn starts, or a paused turn is taken up again. */
  turnStart?(turn: TurnContext): void | Promise<void>;
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
  /** The turn's model, for extensions that ask it something themselves (a summary). */
  readonly model: ModelClient;
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
}
