import { addUsage } from '../../core/budget.ts';
import { BudgetExhaustedError } from '../../core/errors.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { ModelStop } from '../../core/ports/model.ts';
import type { LoopHooks } from '../../agent/extension-api/extension-runner.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import { runLoop, type LoopInput } from '../../agent/loop/run-loop.ts';
import type { TurnDraft } from '../../agent/turn/turn-draft.ts';

/** An answer the strategy holds: its text, and the round of the model call that wrote it. */
export interface Answer {
  text: string;
  round: number;
  stop?: ModelStop;
}

/** Why a call of the strategy's own gave no text. */
export type Interruption = 'budget_exhausted' | 'deadline' | 'model_failed';

/**
 * The model calls a reflection strategy makes of its own (a critique, a revision, a reflection, the
 * judge, the samples): each a one-round use of the loop, numbered after the turn's rounds, its
 * rounds and tokens added to the turn's (`main`), no round record (they run no tool), and no text
 * streamed (the strategy's `reflection` events carry what they wrote).
 */
export class OwnCalls {
  private readonly loop: LoopInput;
  private readonly main: TurnDraft;
  /** Why the last call gave no text. */
  interrupted: Interruption = 'model_failed';

  constructor(loop: LoopInput) {
    this.loop = loop;
    this.main = loop.draft;
  }

  roundsLeft(): number {
    return this.loop.limits.maxRounds - this.main.rounds;
  }

  /**
   * One model call, no tools: the turn's messages so far (the question and its tool rounds), then
   * `tail`. Undefined when it gave no text (`interrupted` says why).
   */
  async ask(tail: HistoryMessage[]): Promise<Answer | undefined> {
    const draft = this.draft([...this.main.messages, ...tail], this.main.rounds);
    const start = draft.rounds;
    const outcome = await runLoop({ ...this.phase(), tools: [], hooks: PASS_THROUGH, draft, limits: { ...this.loop.limits, maxRounds: start + 1 } });
    this.count(draft, start);
    if (outcome.kind === 'completed') return { text: outcome.reply, round: draft.rounds, ...(outcome.stop ? { stop: outcome.stop } : {}) };
    // The answer so far stands: a budget spent, the time up or a model down ends the refining, not the turn.
    this.interrupted = outcome.kind === 'failed' ? (outcome.cause instanceof BudgetExhaustedError ? 'budget_exhausted' : 'model_failed') : outcome.kind === 'stopped' && outcome.reason === 'deadline' ? 'deadline' : 'model_failed';
    // Asked for a tool although none is offered: its text, when it wrote any beside the calls.
    const reply = draft.messages.at(-1)?.role === 'tool' ? draft.messages.findLast((message) => message.role === 'assistant') : undefined;
    return reply?.content?.trim() ? { text: reply.content, round: draft.rounds } : undefined;
  }

  /**
   * `count` calls side by side, each sending `messages` as the loop would (the tools offered, the
   * extensions' beforeModelCall); a reply that asks for tools stops at its one round, its calls
   * answered, never run. The answers that came, in order.
   */
  async repeat(messages: readonly HistoryMessage[], count: number): Promise<Answer[]> {
    const hooks: LoopHooks = { ...PASS_THROUGH, prepareModelCall: (plan, round) => this.loop.hooks.prepareModelCall(plan, round) };
    const runs = Array.from({ length: count }, (_, index) => {
      // Disjoint round numbers for calls side by side.
      const draft = this.draft([...messages], this.main.rounds + index);
      const start = draft.rounds;
      return runLoop({ ...this.phase(), hooks, draft, limits: { ...this.loop.limits, maxRounds: start + 1 } }).then((outcome) => ({ outcome, draft, start }));
    });
    const answers: Answer[] = [];
    for (const { outcome, draft, start } of await Promise.all(runs)) {
      this.count(draft, start);
      if (outcome.kind === 'completed' && outcome.reply.trim() !== '') answers.push({ text: outcome.reply, round: draft.rounds, ...(outcome.stop ? { stop: outcome.stop } : {}) });
    }
    return answers;
  }

  private draft(messages: HistoryMessage[], rounds: number): TurnDraft {
    return { messages, rounds, toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 }, ran: [] };
  }

  private count(draft: TurnDraft, start: number): void {
    this.main.rounds += draft.rounds - start;
    this.main.usage = addUsage(this.main.usage, draft.usage);
  }

  /** The turn's loop input for a call of the strategy's own: no round record, no text streamed. */
  private phase(): LoopInput {
    // A critique or a vote answers in its own words: the answer's format is not theirs (the turn checks the final answer).
    const { journal: _record, onEvent, answerCheck: _format, ...base } = this.loop;
    return onEvent ? { ...base, onEvent: quiet(onEvent) } : base;
  }
}

/** Events of a call of the strategy's own, without its text (its `reflection` event carries it). */
const quiet = (onEvent: (event: LoopEvent) => void) => (event: LoopEvent) => (event.type === 'text-delta' || event.type === 'reasoning-delta' ? undefined : onEvent(event));

/** Hooks of a call no extension takes part in (a critique, a revision, a reflection, the judge). */
const PASS_THROUGH: LoopHooks = {
  prepareModelCall: async (plan) => plan,
  replied: async () => {},
  route: (call) => call,
  runTool: async () => ({ ok: false, text: 'No tool is offered here.' }),
};
