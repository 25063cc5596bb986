import type { BudgetExhaustion } from './budget.ts';
import type { TokenUsage } from './messages.ts';

/**
 * Why a turn ended:
 * - `completed`: the model answered with text and no tool calls;
 * - `max_rounds`: the round limit was reached while the model still asked for tools;
 * - `deadline`: the time left for the turn ran out;
 * - `error`: the model failed after tools had already run (their results are kept);
 * - `approval_required`: calls of the last reply wait for a person's decision (the turn is paused);
 * - `input_required`: a call's MCP server asked the user a question (elicitation); the turn is
 *   paused until the answer comes, and the call then runs again with it;
 * - `interrupted`: the process running the turn died; the next request completed it from its record;
 * - `budget_exhausted`: a token budget (agent.yml `limits`) ran out before the next model call;
 * - `max_tokens`: the model's answer reached its output token limit: the reply is cut short;
 * - `content_filtered`: a guardrail or content filter withheld the model's answer: the reply is
 *   the filter's own words (or a sentence saying it intervened), and no call of that reply ran;
 * - `invalid_output`: the turn asked for a structured answer (responseFormat) and the model's
 *   answer in its last round still did not validate against the schema; `error` says why.
 */
/** The stop reasons of a turn whose model answered: its reply is the model's own text. */
export type AnsweredStopReason = 'completed' | 'max_tokens' | 'content_filtered';

export type StopReason = 'completed' | 'max_rounds' | 'deadline' | 'error' | 'approval_required' | 'input_required' | 'interrupted' | 'budget_exhausted' | 'max_tokens' | 'content_filtered' | 'invalid_output';

export interface ToolCallRecord {
  id: string;
  name: string;
  /** Parsed arguments, or the raw text when the model's arguments were not JSON. */
  arguments: unknown;
  ok: boolean;
  durationMs: number;
  /** The tool policy's decision on the call (agent.yml toolPolicy) and the policies that made it; absent without a policy. */
  policy?: { decision: 'allow' | 'deny'; policyIds: string[]; needsApproval?: true };
}

/** A call the model made that waits for a person's approval before it runs. */
export interface PendingApproval {
  toolCallId: string;
  /** The tool's name as the model called it. */
  name: string;
  /** The MCP server that serves it. */
  server: string;
  /** The arguments it will run with, exactly as the model wrote them (parsed). */
  arguments: unknown;
  /**
   * Set when what waits is not the call but its MCP server's request to use the model (sampling,
   * `sampling: ask`): approved, the call runs again and the request is answered by the agent's model.
   */
  sampling?: { messages: Array<{ role: 'user' | 'assistant'; text: string }>; systemPrompt?: string; maxTokens: number };
}

/**
 * A question a call's MCP server asked the user (elicitation, form mode), waiting for the answer:
 * `{action: "accept", content}` matching `requestedSchema`, `{action: "decline"}` or `{action: "cancel"}`.
 * The call then runs again, and the server gets the answer when it asks again.
 */
export interface PendingElicitation {
  toolCallId: string;
  /** The tool's name as the model called it. */
  name: string;
  server: string;
  message: string;
  /** A flat JSON Schema object: the fields the server asks for (none in URL mode). */
  requestedSchema: { [key: string]: unknown };
  /**
   * URL mode (MCP 2025-11-25; absent for a form): the server asks the user to open `url` (sign in,
   * pay, consent) and then answer `{action: "accept"}` (no content), `decline` or `cancel`.
   */
  mode?: 'url';
  url?: string;
  elicitationId?: string;
}

export interface TurnError {
  code: string;
  message: string;
  /** The model did not answer in time (maps to 504 rather than 502). */
  timeout: boolean;
}

/** What a turn has done so far: kept on its record while it runs or waits. */
export interface TurnProgress {
  rounds: number;
  toolCalls: ToolCallRecord[];
  usage: TokenUsage;
}

/** A turn's tokens, and (since budgets) the conversation's, this turn included. */
export interface TurnUsage extends TokenUsage {
  /** Every model call of the conversation so far, as the model reported them; absent on turns stored before budgets. */
  conversation?: TokenUsage;
}

export interface TurnResult extends TurnProgress {
  usage: TurnUsage;
  conversationId: string;
  turn: number;
  reply: string;
  stopReason: StopReason;
  error?: TurnError;
  /** With a responseFormat, when the answer validated: the answer parsed (`reply` is its JSON text). */
  output?: unknown;
  /** With `approval_required` (or `input_required`): the calls to decide (POST /conversations/{id}/approvals). */
  pendingApprovals?: PendingApproval[];
  /** With `budget_exhausted`: the limit that ran out. */
  budget?: BudgetExhaustion;
  /** With `input_required`: the questions to answer (POST /conversations/{id}/approvals). */
  pendingElicitations?: PendingElicitation[];
  /** With `todoList: true`: the todo list as the turn left it. */
  todos?: Array<{ content: string; status: 'pending' | 'in_progress' | 'completed' }>;
  /** With `strategy: plan-execute`: the plan, each task with its status and result. */
  plan?: { tasks: Array<{ id: number; title: string; details?: string; independent: boolean; status: 'not_started' | 'in_progress' | 'completed' | 'blocked'; notes?: string; result?: string }> } | null;
}

export const emptyProgress = (): TurnProgress => ({ rounds: 0, toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 } });
