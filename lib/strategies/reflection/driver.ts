import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import { addUsage } from '../../core/budget.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ReflectionStep, TrialFailure } from '../../agent/loop/loop-events.ts';
import { runLoop, type LoopInput, type LoopOutcome } from '../../agent/loop/run-loop.ts';
import type { TurnDraft } from '../../agent/turn/turn-draft.ts';
import type { StrategyTurn, TurnStrategy } from '../../agent/loop/turn-strategy.ts';
import { HeldText } from './held-text.ts';
import { LESSONS_STATE } from './lessons.ts';
import { OwnCalls, type Answer } from './own-calls.ts';
import { sampledAnswer } from './samples.ts';
import { VERDICT_PROTOCOL, verdictOf, type Verdict } from './verdict.ts';

/**
 * The reflection strategies (docs/reflection.md), one bounded composition of the loop:
 *
 *   trial        the loop, as react runs it (tools, approvals, extensions), within its share of rounds
 *   samples      self-consistency: the trial's last request sent k-1 more times (side by side, no
 *                tools run); the answer most answers agree with is kept, or the judge's pick
 *   critique     one call, no tools: the conversation with the answer, and the critique prompt;
 *                ends with a verdict (verdict.ts)
 *   revision     Self-Refine: one call, no tools: the same, the critique, and the revise prompt
 *   reflection   Reflexion: a trial that failed (max_rounds, a tool error it never got past, a
 *                critique's FAIL) is reflected on in one call, and the next trial starts with the
 *                reflections in front of it; each reflection is kept as a lesson (lessons.ts)
 *
 * Every call is a round of the turn's maxRounds, within its deadline and budgets, and is traced.
 * What the conversation keeps: the question, every trial's tool rounds (each call answered), and
 * the final answer. Drafts, critiques, reflections and samples are in the trace, the `reflection`
 * events and the result's `reflection` field, never in the history the model is sent later.
 */

export interface ReflectionSettings {
  selfRefine: boolean;
  maxRevisions: number;
  critiquePrompt: string;
  revisePrompt: string;
  maxTrials: number;
  trialRounds?: number | undefined;
  evaluate: boolean;
  reflectPrompt: string;
  lessons: number;
  samples: number;
  judgePrompt?: string | undefined;
  /** Reflections are saved as lessons (a note store, reflection.lessons > 0, no approval needed for it). */
  keepsLessons: boolean;
}

/** Where a trial stands while the turn waits for approval. */
interface TrialSpot extends JsonObject {
  number: number;
  /** Where the trial's own messages start in the turn's messages. */
  start: number;
  /** The round the trial may not go past. */
  limit: number;
  /** The turn's rounds when the trial started. */
  roundsBefore: number;
}

interface ReflectionState extends JsonObject {
  trial?: TrialSpot;
  /** This turn's reflections so far, oldest first. */
  reflections?: string[];
  /** What the strategy did, for the turn result. */
  steps?: JsonObject[];
}

/** `maxTrials` 1 is react with Self-Refine or self-consistency; more is Reflexion. */
export function reflectionStrategy(settings: ReflectionSettings, extensions: readonly AgentExtension[] = []): TurnStrategy {
  return { run: (loop, turn) => new ReflectionRun(loop, turn, settings).run(), extensions };
}

class ReflectionRun {
  private readonly loop: LoopInput;
  private readonly turn: StrategyTurn;
  private readonly settings: ReflectionSettings;
  private readonly main: TurnDraft;
  private readonly state: ReflectionState;
  private readonly text: HeldText | undefined;
  /** The strategy's model calls of its own. */
  private readonly calls: OwnCalls;
  /** How many of a trial draft's toolCalls are the turn's from before it. */
  private readonly inheritedCalls = new WeakMap<TurnDraft, number>();

  constructor(loop: LoopInput, turn: StrategyTurn, settings: ReflectionSettings) {
    this.loop = loop;
    this.turn = turn;
    this.settings = settings;
    this.main = loop.draft;
    this.state = turn.state as ReflectionState;
    this.text = loop.onEvent && new HeldText(loop.onEvent);
    this.calls = new OwnCalls(loop);
    // A new turn starts afresh; a resumed one goes on with the trial it paused in.
    if (!turn.resumed) for (const key of Object.keys(this.state)) delete this.state[key];
  }

  async run(): Promise<LoopOutcome> {
    let spot = this.state.trial ?? this.newTrial(1);
    delete this.state.trial;
    for (;;) {
      const { outcome, draft, ownStart } = await this.runTrial(spot);
      if (outcome.kind === 'paused') {
        this.state.trial = { ...spot, start: this.main.messages.length };
        this.absorb(draft, ownStart);
        return outcome;
      }
      this.absorb(draft, ownStart);
      if (outcome.kind === 'failed' || (outcome.kind === 'stopped' && outcome.reason === 'deadline')) {
        this.text?.flushAll();
        return outcome;
      }
      let failure: { reason: TrialFailure; why: string; answer?: string } | undefined;
      let answer: Answer | undefined;
      /** The last critique found that the answer does not answer the question, and no retry is left. */
      let unanswered = false;
      if (outcome.kind === 'completed') {
        this.text?.drop();
        answer = { text: outcome.reply, round: draft.rounds, ...(outcome.stop ? { stop: outcome.stop } : {}) };
        const sampled = await sampledAnswer(answer, draft.messages.slice(0, -1), this.calls, this.settings);
        if (sampled.step) this.step(sampled.step, this.main.rounds);
        answer = sampled.answer;
        const refined = await this.refined(answer, spot.number);
        answer = refined.answer;
        unanswered = refined.verdict === 'fail';
        const toolError = this.toolError(draft);
        if (refined.failed !== undefined) failure = { reason: toolError ? 'tool_error' : 'not_answered', why: `A review found that the answer does not answer the question:\n${refined.failed}`, answer: answer.text };
        else if (!this.settings.evaluate && this.isReflexion() && toolError) failure = { reason: 'tool_error', why: toolError, answer: answer.text };
      } else {
        this.text?.flushAll();
        const toolError = this.toolError(draft);
        failure = toolError ? { reason: 'tool_error', why: toolError } : { reason: 'max_rounds', why: `The attempt used all ${spot.limit - spot.roundsBefore} of its model calls without reaching an answer.` };
      }
      if (failure && this.canRetry(spot.number)) {
        const reflected = await this.reflect(spot.number, failure);
        if (reflected) {
          spot = this.newTrial(spot.number + 1);
          continue;
        }
      }
      if (answer) return this.finish(answer, failure || (unanswered && this.isReflexion()) ? 'max_trials' : undefined);
      if (this.isReflexion()) this.step({ kind: 'end', reason: spot.number >= this.settings.maxTrials ? 'max_trials' : 'max_rounds' }, this.main.rounds);
      return outcome;
    }
  }

  private isReflexion(): boolean {
    return this.settings.maxTrials > 1;
  }

  private roundsLeft(): number {
    return this.calls.roundsLeft();
  }

  /** A retry needs a trial left, and two rounds: the reflection and at least one of the new trial. */
  private canRetry(trial: number): boolean {
    return trial < this.settings.maxTrials && this.roundsLeft() >= 2 && this.timeLeft() > 0;
  }

  private timeLeft(): number {
    return this.loop.deadlineAt - this.loop.limits.reserveMs - (this.loop.now ?? Date.now)();
  }

  /** A trial's rounds: its share (reflection.trialRounds, or maxRounds shared evenly), the last trial all that is left. */
  private newTrial(number: number): TrialSpot {
    const { maxTrials, trialRounds } = this.settings;
    const maxRounds = this.loop.limits.maxRounds;
    const share = trialRounds ?? Math.max(1, Math.floor((maxRounds - (maxTrials - 1)) / maxTrials));
    const limit = number < maxTrials ? Math.min(maxRounds, this.main.rounds + share) : maxRounds;
    if (this.isReflexion()) this.step({ kind: 'trial', trial: number }, this.main.rounds);
    return { number, start: this.main.messages.length, limit, roundsBefore: this.main.rounds };
  }

  /** Runs (or, after a pause, goes on with) a trial: the loop, the reflections so far in front of it. */
  private async runTrial(spot: TrialSpot): Promise<{ outcome: LoopOutcome; draft: TurnDraft; ownStart: number }> {
    const own = this.main.messages.splice(spot.start);
    const draft: TurnDraft = {
      messages: [...this.main.messages, ...this.reflectionMessages(), ...own],
      rounds: this.main.rounds,
      toolCalls: [...this.main.toolCalls],
      usage: { promptTokens: 0, completionTokens: 0 },
      ran: [],
    };
    this.inheritedCalls.set(draft, draft.toolCalls.length);
    const ownStart = draft.messages.length - own.length;
    const journal = this.loop.journal && { record: (recorded: TurnDraft) => this.loop.journal!.record(this.snapshot(recorded, ownStart)) };
    const outcome = await runLoop({
      ...this.loop,
      draft,
      ...(journal ? { journal } : {}),
      ...(this.text ? { onEvent: this.text.events } : {}),
      limits: { ...this.loop.limits, maxRounds: spot.limit },
    });
    return { outcome, draft, ownStart };
  }

  /** The round record of a trial under way: the turn's messages and the trial's own, without what stands in front of it. */
  private snapshot(recorded: TurnDraft, ownStart: number): TurnDraft {
    return {
      ...recorded,
      messages: [...this.main.messages, ...recorded.messages.slice(ownStart)],
      toolCalls: recorded.toolCalls,
      usage: addUsage(this.main.usage, recorded.usage),
    };
  }

  /** The reflections of earlier trials, in front of a retry: a user message, as the user's turn to speak. */
  private reflectionMessages(): HistoryMessage[] {
    const reflections = this.state.reflections ?? [];
    if (reflections.length === 0) return [];
    const listed = reflections.map((text, index) => `${index + 1}. ${text}`).join('\n');
    return [{
      role: 'user',
      content: `[Reflection] Your earlier ${reflections.length === 1 ? 'attempt' : 'attempts'} at this question did not succeed. What you wrote about ${reflections.length === 1 ? 'it' : 'them'}:\n${listed}\nTry again now. The tool results above are real: use them, and do not repeat calls that changed something.`,
    }];
  }

  /**
   * A trial's work becomes the turn's: its rounds, usage and calls, and its tool rounds (a paused
   * trial's last round still open). Its answer joins only once it is final (finish).
   */
  private absorb(draft: TurnDraft, ownStart: number): void {
    this.main.rounds = draft.rounds;
    this.main.usage = addUsage(this.main.usage, draft.usage);
    this.main.toolCalls.push(...draft.toolCalls.slice(this.inheritedCalls.get(draft) ?? 0));
    this.main.ran.push(...draft.ran);
    this.main.messages.push(...toolRounds(draft.messages.slice(ownStart)));
  }

  /** A tool call of the trial that failed, with no later call of the same tool that worked: why, in words. */
  private toolError(draft: TurnDraft): string | undefined {
    const own = draft.toolCalls.slice(this.inheritedCalls.get(draft) ?? 0);
    const ran = new Set([...this.main.ran, ...draft.ran].map((call) => call.id));
    const stuck = own.filter((record, index) => !record.ok && ran.has(record.id) && !own.slice(index + 1).some((later) => later.ok && later.name === record.name)).at(-1);
    if (!stuck) return undefined;
    const answer = draft.messages.find((message) => message.role === 'tool' && message.toolCallId === stuck.id);
    const text = answer?.content ?? '';
    return `A call of ${stuck.name} failed and the attempt never got past it: ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`;
  }

  /**
   * Critiques and revisions: Self-Refine revises until a critique finds nothing to change (OK),
   * reflection.maxRevisions, or the rounds run out; a Reflexion trial's evaluation is its first
   * critique. `failed`: the critique's text, when it found that the answer does not answer the
   * question and a retry is possible (the trial failed).
   */
  private async refined(answer: Answer, trial: number): Promise<{ answer: Answer; failed?: string; verdict?: Verdict }> {
    const evaluating = this.isReflexion() && this.settings.evaluate;
    if (!this.settings.selfRefine && !evaluating) return { answer };
    let current = answer;
    for (let revisions = 0; ; ) {
      if (this.settings.selfRefine && revisions >= this.settings.maxRevisions) return this.ended(current, 'max_revisions');
      if (this.roundsLeft() < 1) return this.ended(current, 'max_rounds');
      const critique = await this.calls.ask(this.critiqueMessages(current));
      if (!critique) return this.ended(current, this.calls.interrupted);
      const verdict: Verdict = verdictOf(critique.text);
      this.step({ kind: 'critique', revision: revisions, verdict, text: critique.text }, critique.round);
      if (verdict === 'fail' && evaluating && revisions === 0 && this.canRetry(trial)) return { answer: current, failed: critique.text };
      if (verdict === 'ok') return this.ended(current, 'no_changes');
      if (!this.settings.selfRefine) return { answer: current, verdict };
      if (this.roundsLeft() < 1) return this.ended(current, 'max_rounds');
      const revised = await this.calls.ask([...this.critiqueMessages(current), { role: 'assistant', content: critique.text, toolCalls: [] }, { role: 'user', content: this.settings.revisePrompt }]);
      if (!revised) return this.ended(current, this.calls.interrupted);
      if (revised.text.trim() === '') return { answer: current };
      current = revised;
      revisions++;
      this.step({ kind: 'revision', revision: revisions, text: current.text }, current.round);
    }
  }

  /** Self-Refine ended (a Reflexion evaluation alone is no refining: its trial's end says how it went). */
  private ended(answer: Answer, reason: Extract<ReflectionStep, { kind: 'end' }>['reason']): { answer: Answer } {
    if (this.settings.selfRefine) this.step({ kind: 'end', reason }, this.main.rounds);
    return { answer };
  }

  /** The turn so far, the answer as the assistant's, and the critique prompt with the verdict protocol. */
  private critiqueMessages(answer: Answer): HistoryMessage[] {
    return [
      { role: 'assistant', content: answer.text, toolCalls: [] },
      { role: 'user', content: `${this.settings.critiquePrompt}\n\n${VERDICT_PROTOCOL}` },
    ];
  }

  /** Reflexion: the reflection on a failed trial, kept for the retry and as a lesson. False when it could not be written. */
  private async reflect(trial: number, failure: { reason: TrialFailure; why: string; answer?: string }): Promise<boolean> {
    const tail: HistoryMessage[] = failure.answer === undefined ? [] : [{ role: 'assistant', content: failure.answer, toolCalls: [] }];
    const reflection = await this.calls.ask([...tail, { role: 'user', content: `${this.settings.reflectPrompt}\n\nWhy the attempt failed: ${failure.why}` }]);
    if (!reflection || reflection.text.trim() === '') return false;
    const text = reflection.text.trim();
    this.state.reflections = [...(this.state.reflections ?? []), text];
    const kept = this.settings.keepsLessons;
    if (kept) {
      const lessons = this.turn.runner.stateOf(LESSONS_STATE);
      lessons.pending = [...(Array.isArray(lessons.pending) ? (lessons.pending as string[]) : []), text];
    }
    this.step({ kind: 'reflection', trial, reason: failure.reason, text, kept }, reflection.round);
    return true;
  }

  /** The final answer: joins the turn's messages, streams as the answer's text, ends the turn. */
  private finish(answer: Answer, reason?: 'max_trials'): LoopOutcome {
    if (reason) this.step({ kind: 'end', reason }, this.main.rounds);
    else if (this.isReflexion()) this.step({ kind: 'end', reason: 'succeeded' }, this.main.rounds);
    this.main.messages.push({ role: 'assistant', content: answer.text, toolCalls: [] });
    this.loop.onEvent?.({ type: 'text-delta', round: answer.round, text: answer.text });
    return { kind: 'completed', reply: answer.text, ...(answer.stop ? { stop: answer.stop } : {}) };
  }

  private step(step: ReflectionStep, round: number): void {
    this.state.steps = [...(this.state.steps ?? []), { round, ...step } as JsonObject];
    this.loop.onEvent?.({ type: 'reflection', round, step });
  }
}

/** The rounds that called tools (each with its answers), without answers in text. */
function toolRounds(messages: readonly HistoryMessage[]): HistoryMessage[] {
  return messages.filter((message) => message.role === 'tool' || (message.role === 'assistant' && message.toolCalls.length > 0));
}
