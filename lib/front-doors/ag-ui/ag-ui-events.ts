import type { BaseEvent } from '@ag-ui/core';
import type { TurnResult } from '../../core/turn.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import type { HttpResponse } from '../../http/types.ts';
import { replyRest } from '../../core/reply-rest.ts';

/** An AG-UI event as written: `type` one of @ag-ui/core's EventType values (a type only; the package is not bundled). */
type AgUiEvent = BaseEvent & Record<string, unknown>;

/** Extension events that are the agent's state (a STATE_SNAPSHOT each); the others are CUSTOM events. */
const STATE_EVENTS = new Set(['todos', 'plan']);

interface Run {
  threadId: string;
  runId: string;
}

/**
 * A turn's loop events → AG-UI events (what CopilotKit and the other AG-UI clients read):
 *
 *   first event          RUN_STARTED (threadId = the conversation)
 *   round-start          STEP_FINISHED of the round before, STEP_STARTED "round N"
 *   text-delta           TEXT_MESSAGE_START (one assistant message per round) / TEXT_MESSAGE_CONTENT
 *   tool-call            TOOL_CALL_START, TOOL_CALL_ARGS (the JSON arguments whole), TOOL_CALL_END
 *   tool-result          TOOL_CALL_RESULT (the tool message's text)
 *   todos, plan          STATE_SNAPSHOT: the state, `{todos, plan}` as far as the turn has them
 *   approval-required,
 *   elicitation-req.     CUSTOM with what waits; the run then ends with RUN_FINISHED whose outcome
 *                        is `interrupt`, one interrupt per call (its id the call's), answered by a
 *                        new run's `resume` entries (run-input.ts)
 *   other extension
 *   events, reflection,
 *   tool-progress        CUSTOM {name, value}
 *   reasoning-delta      nothing: the model's reasoning is not the answer
 *   the result           what the reply adds as text, a STATE_SNAPSHOT when the result's todos or
 *                        plan are not the state sent, RUN_FINISHED (result: the turn result)
 *   a failure            RUN_ERROR {message, code}
 */
export class AgUiEvents {
  private started = false;
  private step: string | undefined;
  private messageId: string | undefined;
  private lastRoundText = '';
  private lastTextRound: number | undefined;
  private state: Record<string, unknown> = {};
  private readonly calls = new Set<string>();
  private readonly interrupts: Array<Record<string, unknown>> = [];

  private readonly run: Run;

  constructor(run: Run) {
    this.run = run;
  }

  event(event: LoopEvent): AgUiEvent[] {
    switch (event.type) {
      case 'turn-start':
        return this.start();
      case 'round-start': {
        const events = [...this.start(), ...this.endStep()];
        this.step = `round ${event.round}`;
        events.push({ type: 'STEP_STARTED', stepName: this.step } as AgUiEvent);
        return events;
      }
      case 'text-delta': {
        if (event.text === '') return [];
        const events = this.start();
        if (this.lastTextRound !== event.round) this.lastRoundText = '';
        this.lastTextRound = event.round;
        this.lastRoundText += event.text;
        if (this.messageId === undefined) {
          this.messageId = `${this.run.runId}-text-${event.round}`;
          events.push(this.make('TEXT_MESSAGE_START', { messageId: this.messageId, role: 'assistant' }));
        }
        events.push(this.make('TEXT_MESSAGE_CONTENT', { messageId: this.messageId, delta: event.text }));
        return events;
      }
      case 'reasoning-delta':
        return [];
      case 'tool-call':
        return [...this.start(), ...this.toolCall(event.call.id, event.call.name, event.call.arguments)];
      case 'tool-result': {
        const { id, name } = event.result;
        const call = this.calls.has(id) ? [] : this.toolCall(id, name, event.result.arguments);
        return [...this.start(), ...this.closeText(), ...call, this.make('TOOL_CALL_RESULT', { messageId: `${this.run.runId}-result-${id}`, toolCallId: id, content: event.content, role: 'tool' })];
      }
      case 'approval-required':
        for (const pending of event.pendingApprovals) {
          this.interrupts.push({
            id: pending.toolCallId,
            reason: 'tool_approval',
            message: `The call ${pending.name} (${pending.server}) waits for approval. Resume with {"interruptId": "${pending.toolCallId}", "status": "resolved", "payload": {"approved": true}} (or false, with a "reason").`,
            toolCallId: pending.toolCallId,
            responseSchema: { type: 'object', properties: { approved: { type: 'boolean' }, reason: { type: 'string' } }, required: ['approved'] },
            metadata: { arguments: pending.arguments, server: pending.server },
          });
        }
        return [...this.start(), ...this.closeText(), this.make('CUSTOM', { name: 'approval-required', value: { pendingApprovals: event.pendingApprovals } })];
      case 'elicitation-required':
        for (const pending of event.pendingElicitations) {
          // A page to open (URL mode) has no form to fill in: its URL goes in the metadata, for the UI to show as a link.
          const page = pending.mode === 'url' ? { mode: 'url', url: pending.url, ...(pending.elicitationId === undefined ? {} : { elicitationId: pending.elicitationId }) } : undefined;
          this.interrupts.push({
            id: pending.toolCallId,
            reason: 'input_required',
            message: pending.message,
            toolCallId: pending.toolCallId,
            ...(page ? {} : { responseSchema: pending.requestedSchema }),
            metadata: { server: pending.server, ...page },
          });
        }
        return [...this.start(), ...this.closeText(), this.make('CUSTOM', { name: 'elicitation-required', value: { pendingElicitations: event.pendingElicitations } })];
      case 'tool-progress': {
        const { type, ...progress } = event;
        return [...this.start(), this.make('CUSTOM', { name: type, value: progress })];
      }
      case 'reflection':
        return [...this.start(), this.make('CUSTOM', { name: 'reflection', value: { round: event.round, ...event.step } })];
      case 'extension':
        if (STATE_EVENTS.has(event.name)) {
          this.state = { ...this.state, ...(event.data as Record<string, unknown>) };
          return [...this.start(), this.make('STATE_SNAPSHOT', { snapshot: this.state })];
        }
        return [...this.start(), this.make('CUSTOM', { name: event.name, value: event.data })];
    }
  }

  /** The turn's end: what its reply adds to the text streamed, then RUN_FINISHED (an interrupt when the turn waits). */
  result(result: TurnResult): AgUiEvent[] {
    const events = this.start();
    const rest = replyRest(this.lastRoundText, result.reply);
    if (rest !== '') {
      if (this.messageId === undefined) {
        this.messageId = `${this.run.runId}-reply`;
        events.push(this.make('TEXT_MESSAGE_START', { messageId: this.messageId, role: 'assistant' }));
      }
      events.push(this.make('TEXT_MESSAGE_CONTENT', { messageId: this.messageId, delta: rest }));
    }
    events.push(...this.endStep());
    // The state as the turn left it, for a client that saw none of it change (a replayed turn, a list kept from an earlier turn).
    const state = { ...this.state, ...(result.todos === undefined ? {} : { todos: result.todos }), ...(result.plan == null ? {} : { plan: result.plan }) };
    if (JSON.stringify(state) !== JSON.stringify(this.state)) {
      this.state = state;
      events.push(this.make('STATE_SNAPSHOT', { snapshot: state }));
    }
    const waits = (result.stopReason === 'approval_required' || result.stopReason === 'input_required') && this.interrupts.length > 0;
    events.push(this.make('RUN_FINISHED', { ...this.run, result, outcome: waits ? { type: 'interrupt', interrupts: this.interrupts } : { type: 'success' } }));
    return events;
  }

  failure(response: HttpResponse): AgUiEvent[] {
    const { error } = JSON.parse(response.body) as { error: { code: string; message: string } };
    return [...this.start(), ...this.endStep(), this.make('RUN_ERROR', { message: error.message, code: error.code })];
  }

  private make(type: string, fields: Record<string, unknown>): AgUiEvent {
    return { type, ...fields } as AgUiEvent;
  }

  private start(): AgUiEvent[] {
    if (this.started) return [];
    this.started = true;
    return [this.make('RUN_STARTED', { ...this.run })];
  }

  private toolCall(id: string, name: string, args: unknown): AgUiEvent[] {
    this.calls.add(id);
    return [
      ...this.closeText(),
      this.make('TOOL_CALL_START', { toolCallId: id, toolCallName: name }),
      this.make('TOOL_CALL_ARGS', { toolCallId: id, delta: typeof args === 'string' ? args : JSON.stringify(args) }),
      this.make('TOOL_CALL_END', { toolCallId: id }),
    ];
  }

  private endStep(): AgUiEvent[] {
    const events = this.closeText();
    if (this.step !== undefined) events.push(this.make('STEP_FINISHED', { stepName: this.step }));
    this.step = undefined;
    return events;
  }

  private closeText(): AgUiEvent[] {
    if (this.messageId === undefined) return [];
    const messageId = this.messageId;
    this.messageId = undefined;
    return [this.make('TEXT_MESSAGE_END', { messageId })];
  }

}
