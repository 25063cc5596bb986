import type { UIMessageChunk } from 'ai';
import type { StopReason, TurnResult } from '../../core/turn.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import type { HttpResponse } from '../../http/types.ts';
import { replyRest } from '../../core/reply-rest.ts';

/** The chunks this door writes: the AI SDK's own union (a type only; the package is not bundled). */
type Chunk = UIMessageChunk;

/** How a client decides what a paused turn waits on, sent beside each pause. */
const APPROVAL_HOW = 'Answer with useChat\'s addToolApprovalResponse({ id, approved, reason? }) and send again (sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses), or POST /conversations/{conversationId}/approvals {"decisions": [{"toolCallId", "approved"}]}.';
const ELICITATION_HOW = 'POST /conversations/{conversationId}/approvals {"decisions": [{"toolCallId", "answer": {"action": "accept", "content": {...}}}]}.';

/**
 * A turn's loop events → the AI SDK UI message stream (protocol v1, what useChat reads):
 *
 *   turn-start        start (messageMetadata: conversationId, turn)
 *   round-start       finish-step of the round before, start-step
 *   text-delta        text-start / text-delta (one text part per round; text-end when the round ends)
 *   reasoning-delta   reasoning-start / reasoning-delta / reasoning-end, likewise
 *   tool-call         tool-input-available (a dynamic tool: the client declares none)
 *   tool-result       tool-output-available, or tool-output-error when the call failed, or
 *                     tool-output-denied for a call this request declined
 *   approval-required tool-approval-request per call (approvalId = the call's id), and data-approval
 *   elicitation-req.  data-elicitation: the server's questions, and how to answer them
 *   tool-progress     data-tool-progress (one part per call, replaced as it goes)
 *   extension events  data-<name>, one part per name replaced in place: data-todos, data-plan, …
 *   reflection        data-reflection
 *   the result        what the reply adds as text, data-todos / data-plan when the turn did not
 *                     send them, data-output (a structured answer, parsed), finish-step, finish (finishReason, and the turn
 *                     result as messageMetadata)
 */
export class UIMessageChunks {
  private started = false;
  private stepOpen = false;
  private textId: string | undefined;
  private reasoningId: string | undefined;
  private lastRoundText = '';
  private lastTextRound: number | undefined;
  /** Calls whose input this stream sent: a resumed turn's results may name calls of an earlier stream. */
  private readonly calls = new Set<string>();
  /** The data parts sent, by name: the result's todo list and plan are sent when this turn did not. */
  private readonly dataSent = new Set<string>();
  /** Calls the request declined (addToolApprovalResponse with approved: false): their answer is a denial. */
  private readonly declined: ReadonlySet<string>;

  constructor(declined: ReadonlySet<string> = new Set()) {
    this.declined = declined;
  }

  event(event: LoopEvent): Chunk[] {
    switch (event.type) {
      case 'turn-start':
        return this.start({ conversationId: event.conversationId, turn: event.turn });
      case 'round-start': {
        const chunks: Chunk[] = [...this.start(), ...this.endStep(), { type: 'start-step' }];
        this.stepOpen = true;
        return chunks;
      }
      case 'text-delta': {
        if (event.text === '') return [];
        const chunks: Chunk[] = [...this.start(), ...this.closeReasoning()];
        if (this.lastTextRound !== event.round) this.lastRoundText = '';
        this.lastTextRound = event.round;
        this.lastRoundText += event.text;
        if (this.textId === undefined) {
          this.textId = `text-${event.round}`;
          chunks.push({ type: 'text-start', id: this.textId });
        }
        chunks.push({ type: 'text-delta', id: this.textId, delta: event.text });
        return chunks;
      }
      case 'reasoning-delta': {
        const chunks: Chunk[] = [...this.start(), ...this.closeText()];
        if (this.reasoningId === undefined) {
          this.reasoningId = `reasoning-${event.round}`;
          chunks.push({ type: 'reasoning-start', id: this.reasoningId });
        }
        chunks.push({ type: 'reasoning-delta', id: this.reasoningId, delta: event.text });
        return chunks;
      }
      case 'tool-call':
        this.calls.add(event.call.id);
        return [...this.start(), ...this.closeParts(), { type: 'tool-input-available', toolCallId: event.call.id, toolName: event.call.name, input: event.call.arguments, dynamic: true }];
      case 'tool-result': {
        const { id, name, ok } = event.result;
        const input: Chunk[] = this.calls.has(id) ? [] : [{ type: 'tool-input-available', toolCallId: id, toolName: name, input: event.result.arguments, dynamic: true }];
        this.calls.add(id);
        // The part the client declined continues in the AI SDK's own state for it, output-denied.
        if (this.declined.has(id)) return [...this.start(), ...this.closeParts(), { type: 'tool-output-denied', toolCallId: id }];
        const output: Chunk = ok ? { type: 'tool-output-available', toolCallId: id, output: event.content, dynamic: true } : { type: 'tool-output-error', toolCallId: id, errorText: event.content, dynamic: true };
        return [...this.start(), ...this.closeParts(), ...input, output];
      }
      case 'tool-progress': {
        const { type, ...progress } = event;
        return [...this.start(), { type: 'data-tool-progress', id: `progress-${event.id}`, data: progress }];
      }
      case 'approval-required':
        return [
          ...this.start(),
          ...this.closeParts(),
          ...event.pendingApprovals.map((pending): Chunk => ({ type: 'tool-approval-request', approvalId: pending.toolCallId, toolCallId: pending.toolCallId })),
          { type: 'data-approval', id: 'approval', data: { pendingApprovals: event.pendingApprovals, howToDecide: APPROVAL_HOW } },
        ];
      case 'elicitation-required':
        return [...this.start(), ...this.closeParts(), { type: 'data-elicitation', id: 'elicitation', data: { pendingElicitations: event.pendingElicitations, howToAnswer: ELICITATION_HOW } }];
      case 'reflection':
        return [...this.start(), { type: 'data-reflection', data: { round: event.round, ...event.step } }];
      case 'extension':
        this.dataSent.add(event.name);
        return [...this.start(), { type: `data-${event.name}`, id: event.name, data: event.data }];
    }
  }

  /** The turn's end: what its reply adds to the text streamed (a stop without an answer says why), then finish. */
  result(result: TurnResult): Chunk[] {
    const chunks: Chunk[] = [...this.start({ conversationId: result.conversationId, turn: result.turn }), ...this.closeReasoning()];
    const rest = replyRest(this.lastRoundText, result.reply);
    if (rest !== '') {
      if (this.textId === undefined) {
        this.textId = 'text-reply';
        chunks.push({ type: 'text-start', id: this.textId });
      }
      chunks.push({ type: 'text-delta', id: this.textId, delta: rest });
    }
    // The todo list and plan as the turn left them, for a message that has not shown them (a replayed turn, a list kept from an earlier turn).
    if (result.todos !== undefined && !this.dataSent.has('todos')) chunks.push({ type: 'data-todos', id: 'todos', data: { todos: result.todos } });
    if (result.plan != null && !this.dataSent.has('plan')) chunks.push({ type: 'data-plan', id: 'plan', data: { plan: result.plan } });
    // A structured answer (docs/structured-answers.md), parsed: useChat's data part, beside the reply's text.
    if (result.output !== undefined) chunks.push({ type: 'data-output', id: 'output', data: result.output });
    chunks.push(...this.closeParts(), ...this.endStep(), { type: 'finish', finishReason: finishReason(result.stopReason), messageMetadata: result });
    return chunks;
  }

  /** A turn that failed after the stream began, and was not stored: useChat shows `errorText`. */
  failure(response: HttpResponse): Chunk[] {
    const { error } = JSON.parse(response.body) as { error: { code: string; message: string } };
    return [...this.closeParts(), { type: 'error', errorText: `${error.message} (${error.code})` }];
  }

  private start(metadata?: { conversationId: string; turn: number }): Chunk[] {
    if (this.started) return [];
    this.started = true;
    return [{ type: 'start', ...(metadata ? { messageMetadata: metadata } : {}) }];
  }

  private endStep(): Chunk[] {
    const chunks = this.closeParts();
    if (this.stepOpen) chunks.push({ type: 'finish-step' });
    this.stepOpen = false;
    return chunks;
  }

  private closeParts(): Chunk[] {
    return [...this.closeText(), ...this.closeReasoning()];
  }

  private closeText(): Chunk[] {
    if (this.textId === undefined) return [];
    const id = this.textId;
    this.textId = undefined;
    return [{ type: 'text-end', id }];
  }

  private closeReasoning(): Chunk[] {
    if (this.reasoningId === undefined) return [];
    const id = this.reasoningId;
    this.reasoningId = undefined;
    return [{ type: 'reasoning-end', id }];
  }

}

/** The AI SDK's finish reasons: a paused turn stopped at tool calls that wait. */
function finishReason(stopReason: StopReason): 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other' {
  switch (stopReason) {
    case 'completed':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'content_filtered':
      return 'content-filter';
    case 'approval_required':
    case 'input_required':
      return 'tool-calls';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}
