/**
 * When a call's MCP server asks for something only a person can give while the call runs (an
 * elicitation under the policy `ask`, a sampling request under `sampling: ask`), nothing waits in
 * memory for that person: the call's run ends (the server is told the user cancelled, or refused),
 * the call stays unanswered and the turn pauses, stored. The person's answer comes with a later
 * request, and the call runs again from the start with it: when its server asks again, the answer
 * is there. The 2026-07-28 protocol makes this the rule for every server (a tool answers
 * `input_required` and is called again with the answers); stateful servers get the same treatment.
 */
import type { ElicitationRequest, ElicitationResult, SamplingRequest } from '../../core/ports/tools.ts';

/** A person's answer to what a call asked in an earlier run, given to the call's next run. */
export type CallInput =
  | { kind: 'elicitation'; result: ElicitationResult }
  /** A sampling request the person approved: the next one of the call's run is answered by the model. */
  | { kind: 'sampling'; approved: true };

/** What a call asked for that nobody could answer while it ran. */
export type AwaitedInput =
  | { kind: 'elicitation'; server: string; request: ElicitationRequest }
  | { kind: 'sampling'; server: string; request: SamplingRequest };

/**
 * Thrown from an extension's aroundToolCall: the call asked for what only a person can give. The
 * call is left unanswered, the turn pauses, and the call runs again with the answer (RunningCall.input).
 */
export class AwaitingInput extends Error {
  readonly awaited: AwaitedInput;

  constructor(awaited: AwaitedInput) {
    super(`the MCP server "${awaited.server}" asked for ${awaited.kind === 'elicitation' ? "the user's answer to a question" : 'approval to use the model'}`);
    this.name = 'AwaitingInput';
    this.awaited = awaited;
  }
}
