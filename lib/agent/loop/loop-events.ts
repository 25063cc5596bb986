import type { PendingApproval, PendingElicitation, ToolCallRecord } from '../../core/turn.ts';

/** Progress of a running turn, for streaming clients (noun-verb names). */
export type LoopEvent =
  /**
   * The turn is claimed and about to run (not sent for a replayed turn): the first moment a new
   * conversation's id is known, which a streaming response must send in its headers. `requestId`:
   * the request running it (a resumed stream's ids name it).
   */
  | { type: 'turn-start'; conversationId: string; turn: number; requestId: string }
  | { type: 'round-start'; round: number }
  /** A piece of the model's text (or reasoning) as it writes it; the round's reply holds it all. */
  | { type: 'text-delta'; round: number; text: string }
  | { type: 'reasoning-delta'; round: number; text: string }
  /** `arguments` parsed when they are JSON, else the raw text (as in the turn result). */
  | { type: 'tool-call'; round: number; call: { id: string; name: string; arguments: unknown } }
  /** The call's MCP server reported progress (each report also extends the call's timeout, up to tools.maxCallSeconds). */
  | { type: 'tool-progress'; round: number; id: string; name: string; progress: number; total?: number; message?: string }
  /** `content`: the tool message's text, as the model reads it (after tools.maxOutputChars). */
  | { type: 'tool-result'; round: number; result: ToolCallRecord; content: string }
  | { type: 'approval-required'; round: number; pendingApprovals: PendingApproval[] }
  /** A call's MCP server asked the user a question: the turn pauses for the answer. */
  | { type: 'elicitation-required'; round: number; pendingElicitations: PendingElicitation[] }
  /** A step of a reflection strategy (docs/reflection.md): streamed as `reflection`, `round` the model call that made it. */
  | { type: 'reflection'; round: number; step: ReflectionStep }
  /** An event an extension emits (`todos`, `plan`, …): streamed under its own name. */
  | { type: 'extension'; name: string; data: unknown };

/** Why a Reflexion trial did not succeed. */
export type TrialFailure = 'max_rounds' | 'tool_error' | 'not_answered';

/** What a reflection strategy did (lib/strategies/reflection/driver.ts). */
export type ReflectionStep =
  /** Self-Refine (or a Reflexion trial's evaluation): the critique of the answer, and its verdict. */
  | { kind: 'critique'; revision: number; verdict: 'ok' | 'revise' | 'fail'; text: string }
  /** Self-Refine: the revised answer. */
  | { kind: 'revision'; revision: number; text: string }
  /** Reflexion: a trial starts (the first, and each retry). */
  | { kind: 'trial'; trial: number }
  /** Reflexion: why a trial failed, in the model's words; `kept`: saved as a lesson for later turns. */
  | { kind: 'reflection'; trial: number; reason: TrialFailure; text: string; kept: boolean }
  /** Self-consistency: the answers sampled, and the one kept (`by` the vote, or the judge). */
  | { kind: 'samples'; answers: string[]; chosen: number; by: 'vote' | 'judge'; scores: number[] }
  /** The strategy stopped refining or retrying: why. */
  /** `budget_exhausted`, `deadline`, `model_failed`: a call of the strategy's own got no answer; the answer so far stands. */
  | { kind: 'end'; reason: 'no_changes' | 'max_revisions' | 'max_trials' | 'max_rounds' | 'succeeded' | 'budget_exhausted' | 'deadline' | 'model_failed' };
