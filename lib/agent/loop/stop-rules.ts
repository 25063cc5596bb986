import type { ModelStop } from '../../core/ports/model.ts';
import type { PendingApproval, PendingElicitation } from '../../core/turn.ts';
import type { ToolCall } from '../../core/messages.ts';
import { toolText } from './tool-messages.ts';
import type { AnswerVerdict } from './answer-check.ts';

/** How the loop ended; the draft holds everything it did. */
export type LoopOutcome =
  /** `stop`: why the model stopped, when the reply alone does not show it (cut at max_tokens, filtered). */
  /** `output`: the answer parsed, when the turn asked for a structured answer (it validated). */
  | { kind: 'completed'; reply: string; stop?: ModelStop; output?: unknown }
  | { kind: 'stopped'; reason: 'max_rounds' | 'deadline' }
  /** A structured answer that still did not validate in the last round: `problems` says why. */
  | { kind: 'stopped'; reason: 'invalid_output'; reply: string; problems: string }
  /** The model failed, a round's record could not be written, or a budget was spent; `cause` is that error. */
  | { kind: 'failed'; cause: unknown }
  /** Calls wait for a person: `pending` approvals, `elicitations` questions their servers asked. */
  | { kind: 'paused'; pending: PendingApproval[]; elicitations?: PendingElicitation[] };

/** What a stop rule sees after each model reply. */
export interface AfterReply {
  round: number;
  maxRounds: number;
  /** The reply's text, and its calls (ids already made unique). */
  content: string | null;
  calls: readonly ToolCall[];
  stop?: ModelStop;
  /** Milliseconds left before the turn must be stored. */
  timeLeftMs: number;
  /** With a structured answer asked for: the check of a reply without tool calls. */
  verdict?: AnswerVerdict;
}

/**
 * A rule that ends the loop after a reply: the outcome, and what the reply's calls are answered with
 * (they never run); or that sends the reply back to the model with `sendBack`, for another round.
 */
export type StopRule = (reply: AfterReply) => { outcome: LoopOutcome; callsAnsweredWith?: string } | { sendBack: string } | undefined;

/**
 * A structured answer that does not validate: sent back with its problems while rounds are left
 * (the loop appends them as a user message), else the turn stops `invalid_output`.
 */
export const answerRejected: StopRule = ({ verdict, round, maxRounds, content }) => {
  if (!verdict || verdict.ok) return undefined;
  if (round >= maxRounds) return { outcome: { kind: 'stopped', reason: 'invalid_output', reply: content ?? '', problems: verdict.problems } };
  return { sendBack: verdict.problems };
};

/** The model answered: no tool calls (decided on the calls, never on finish_reason). */
export const answered: StopRule = ({ calls, content, stop, verdict }) =>
  calls.length === 0 ? { outcome: { kind: 'completed', reply: content ?? '', ...(stop ? { stop } : {}), ...(verdict?.ok ? { output: verdict.output } : {}) } } : undefined;

/** The round limit is reached while the model still asks for tools. */
export const roundLimitReached: StopRule = ({ round, maxRounds }) =>
  round >= maxRounds ? { outcome: { kind: 'stopped', reason: 'max_rounds' }, callsAnsweredWith: toolText.notExecuted(maxRounds) } : undefined;

/** A reply that arrives with no time left must not start tools it could never wait for. */
export const outOfTime: StopRule = ({ timeLeftMs }) =>
  timeLeftMs <= 0 ? { outcome: { kind: 'stopped', reason: 'deadline' }, callsAnsweredWith: toolText.outOfTime() } : undefined;

/** Checked in this order after every reply; the first that applies ends the loop. */
export const STOP_RULES: readonly StopRule[] = [answerRejected, answered, roundLimitReached, outOfTime];
