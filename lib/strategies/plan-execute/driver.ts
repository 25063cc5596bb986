import { addUsage } from '../../core/budget.ts';
import { ModelError } from '../../core/errors.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { JsonObject } from '../../core/json.ts';
import { planViewExtension } from './view.ts';
import type { AgentConfig } from '../../config/load.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import type { LoopHooks } from '../../agent/extension-api/extension-runner.ts';
import type { Journal } from '../../agent/loop/tool-round.ts';
import { runLoop, type LoopInput, type LoopOutcome } from '../../agent/loop/run-loop.ts';
import { newDraft, questionOf, type TurnDraft } from '../../agent/turn/turn-draft.ts';
import type { StrategyTurn, TurnStrategy } from '../../agent/loop/turn-strategy.ts';
import { applyPlanning, nextTasks, planningTool, renderPlan, renderResults, type Plan, type PlanTask } from './plan.ts';
import { roundNumbers, type RoundNumbers } from './round-numbers.ts';

/**
 * plan-execute (agent.yml `strategy: plan-execute`), after JoyAgent-JDGenie's planner, executor and
 * summary agents. Every phase is a bounded use of the one loop, and every model call counts
 * against the turn's maxRounds (one round kept back for the summary):
 *
 *   plan       the planner writes the plan with the built-in planning tool
 *   execute    each task runs as its own tool loop (the MCP tools, the task as its question, the
 *              results of earlier tasks in its prompt); independent tasks run side by side
 *              (planner.parallelTasks; one at a time when any tool may need approval or ask the user, so a pause
 *              leaves one call list waiting); the planner may revise the plan after each step
 *   summary    a last model call writes the answer from the task results
 *
 * What the conversation keeps: the question, then each executor's calls and results (its rounds
 * that called tools: the invariant holds for each), then the final answer. The planner's messages
 * and the executors' own answers live in the plan (`plan` in the result and the conversation).
 */

type PlanSettings = Pick<AgentConfig, 'planner' | 'executor' | 'summary'>;

interface PlanState extends JsonObject {
  plan?: Plan;
  /** An executor paused for approval: its task, and where its calls start in the turn's messages. */
  current?: { taskId: number; blockStart: number; startRound: number };
}

/** The summary's round, kept back from the planner and the executors. */
const SUMMARY_ROUNDS = 1;

export function planExecuteStrategy(settings: PlanSettings): TurnStrategy {
  return { run: (loop, turn) => new PlanExecuteRun(loop, turn, settings).run(), extensions: [planViewExtension()] };
}

class PlanExecuteRun {
  private readonly main: TurnDraft;
  private readonly question: string;
  private readonly state: PlanState;
  /** Blocks of executors under way, for the round record: taskId → its draft. */
  private readonly inFlight = new Map<number, TurnDraft>();
  /** How many of an executor draft's toolCalls are the turn's from before it (see withTurnCalls). */
  private readonly inheritedCalls = new WeakMap<TurnDraft, number>();
  private recording: Promise<void> = Promise.resolve();
  private readonly loop: LoopInput;
  private readonly settings: PlanSettings;
  private readonly numbers: RoundNumbers;

  constructor(loop: LoopInput, turn: StrategyTurn, settings: PlanSettings) {
    this.loop = loop;
    this.settings = settings;
    this.main = loop.draft;
    this.question = questionOf(loop.draft);
    this.state = turn.state as PlanState;
    this.numbers = roundNumbers(loop.draft.rounds);
    // A new turn plans anew; a resumed one goes on with the plan it paused in.
    if (!turn.resumed) for (const key of Object.keys(this.state)) delete this.state[key];
  }

  async run(): Promise<LoopOutcome> {
    if (this.state.current) {
      const resumed = await this.resumeExecutor(this.state.current);
      if (resumed) return resumed;
      // The task a decision resumed has ended: the planner may revise the plan, as after any task.
      const revised = await this.revise();
      if (revised) return revised;
    }
    if (!this.state.plan) {
      const planned = await this.plan(this.question, this.settings.planner.maxRounds);
      if (planned.kind === 'failed' || (planned.kind === 'stopped' && planned.reason === 'deadline')) return planned;
      this.state.plan ??= { tasks: [{ id: 1, title: this.question, independent: false, status: 'not_started' }] };
      this.emit('plan', { plan: this.state.plan });
    }
    for (;;) {
      const parallel = this.loop.tools.some((tool) => tool.needsApproval || tool.asksUser) ? 1 : this.settings.planner.parallelTasks;
      const batch = nextTasks(this.state.plan!, parallel);
      if (batch.length === 0 || this.roundsLeft() < batch.length) break;
      const stopped = await this.execute(batch);
      if (stopped) return stopped;
      const revised = await this.revise();
      if (revised) return revised;
    }
    return this.summarize();
  }

  /** After a step, while tasks remain and rounds allow: a planning step that may revise the plan. An outcome only when the turn must stop. */
  private async revise(): Promise<LoopOutcome | undefined> {
    const plan = this.state.plan;
    if (!plan || nextTasks(plan, 1).length === 0 || this.roundsLeft() <= 1) return undefined;
    const revised = await this.plan(`${this.question}\n\nProgress of the plan:\n${renderPlan(plan)}\n\nResults so far:\n${renderResults(plan)}`, Math.min(2, this.settings.planner.maxRounds));
    return revised.kind === 'failed' || (revised.kind === 'stopped' && revised.reason === 'deadline') ? revised : undefined;
  }

  /** Rounds the planner and the executors may still use. */
  private roundsLeft(): number {
    return this.loop.limits.maxRounds - this.main.rounds - SUMMARY_ROUNDS;
  }

  private emit(name: string, data: unknown): void {
    this.loop.onEvent?.({ type: 'extension', name, data });
  }

  /** The events of a phase, without its text: only the summary's text is the answer the client reads. */
  private quiet(): ((event: LoopEvent) => void) | undefined {
    const onEvent = this.loop.onEvent;
    return onEvent && ((event) => (event.type === 'text-delta' || event.type === 'reasoning-delta' ? undefined : onEvent(event)));
  }

  /** A planning step: the planner's own loop, with only the planning tool. */
  private async plan(request: string, maxRounds: number): Promise<LoopOutcome> {
    const draft = this.subDraft(request);
    const start = draft.rounds;
    const maxTasks = this.settings.planner.maxTasks;
    const hooks: LoopHooks = {
      prepareModelCall: async (plan) => plan,
      replied: async () => {},
      route: (call) => call,
      runTool: async (call) => {
        const outcome = applyPlanning(this.state.plan, call.arguments, maxTasks);
        if (outcome.ok) {
          this.state.plan = outcome.plan;
          this.emit('plan', { plan: outcome.plan });
        }
        return { ok: outcome.ok, text: outcome.text };
      },
    };
    const outcome = await runLoop({
      ...this.phase(this.quiet()),
      tools: [{ ...planningTool(maxTasks), needsApproval: false, readOnly: true }],
      hooks,
      systemPrompt: `${this.loop.systemPrompt}\n\n${this.settings.planner.prompt}`,
      draft,
      limits: { ...this.loop.limits, maxRounds: start + Math.max(1, Math.min(maxRounds, this.roundsLeft())) },
    });
    // The planner's calls are the plan's business, not the conversation's.
    this.absorb(draft, start, { messages: false, calls: false });
    return outcome;
  }

  /** Runs a batch of tasks side by side; returns an outcome only when the turn must stop. */
  private async execute(batch: PlanTask[]): Promise<LoopOutcome | undefined> {
    const share = Math.max(1, Math.floor(this.roundsLeft() / batch.length));
    const allowed = Math.min(this.settings.executor.maxRounds, share);
    // tools.maxCallsPerTurn bounds the turn, not each task: tasks side by side share the calls left.
    const callsMade = this.main.toolCalls.length;
    const callsLeft = Math.max(0, this.loop.limits.maxCallsPerTurn - callsMade);
    const runs = batch.map((task, index) => {
      task.status = 'in_progress';
      this.emit('task-start', { taskId: task.id, title: task.title });
      const draft = this.withTurnCalls(this.subDraft(this.taskRequest(task)));
      // Disjoint round numbers for tasks that run side by side.
      draft.rounds += index * allowed;
      const callLimit = callsMade + Math.floor(callsLeft / batch.length) + (index < callsLeft % batch.length ? 1 : 0);
      return { task, draft, start: draft.rounds, callLimit };
    });
    const outcomes = await Promise.all(runs.map(({ task, draft, start, callLimit }) => this.runExecutor(task, draft, start + allowed, callLimit)));
    let stop: LoopOutcome | undefined;
    runs.forEach(({ task, draft, start }, index) => {
      const outcome = outcomes[index]!;
      if (outcome.kind === 'paused') {
        // Only one task runs when approvals are possible: its calls wait at the end of the turn.
        this.state.current = { taskId: task.id, blockStart: this.main.messages.length, startRound: this.main.rounds };
        this.absorb(draft, start, { messages: true, calls: true });
        stop = outcome;
        return;
      }
      this.finishTask(task, draft, start, outcome);
      if (outcome.kind === 'failed' || (outcome.kind === 'stopped' && outcome.reason === 'deadline')) stop ??= outcome;
    });
    return stop;
  }

  /** A task whose executor paused for approval goes on: its calls were just decided. */
  private async resumeExecutor(current: NonNullable<PlanState['current']>): Promise<LoopOutcome | undefined> {
    delete this.state.current;
    const task = this.state.plan?.tasks.find((candidate) => candidate.id === current.taskId);
    if (!task) return undefined;
    const block = this.main.messages.splice(current.blockStart);
    const draft = this.withTurnCalls({ messages: [{ role: 'user', content: this.taskRequest(task) }, ...block], rounds: this.main.rounds, toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 }, ran: [] });
    const start = draft.rounds;
    const outcome = await this.runExecutor(task, draft, start + Math.max(1, Math.min(this.settings.executor.maxRounds, this.roundsLeft())));
    if (outcome.kind === 'paused') {
      this.state.current = { taskId: task.id, blockStart: this.main.messages.length, startRound: this.main.rounds };
      this.absorb(draft, start, { messages: true, calls: true });
      return outcome;
    }
    this.finishTask(task, draft, start, outcome);
    return outcome.kind === 'failed' || (outcome.kind === 'stopped' && outcome.reason === 'deadline') ? outcome : undefined;
  }

  private runExecutor(task: PlanTask, draft: TurnDraft, maxRounds: number, maxCallsPerTurn = this.loop.limits.maxCallsPerTurn): Promise<LoopOutcome> {
    this.inFlight.set(task.id, draft);
    const journal: Journal | undefined = this.loop.journal && { record: () => this.record() };
    return runLoop({
      ...this.phase(this.quiet()),
      ...(journal ? { journal } : {}),
      systemPrompt: `${this.loop.systemPrompt}\n\n${this.settings.executor.prompt}\n\nThe plan:\n${renderPlan(this.state.plan!)}\n\nResults of earlier tasks:\n${renderResults(this.state.plan!)}`,
      draft,
      limits: { ...this.loop.limits, maxRounds, maxCallsPerTurn },
    }).finally(() => this.inFlight.delete(task.id));
  }

  private finishTask(task: PlanTask, draft: TurnDraft, start: number, outcome: LoopOutcome): void {
    const answer = [...draft.messages].reverse().find((message) => message.role === 'assistant' && message.content)?.content;
    task.status = outcome.kind === 'completed' ? 'completed' : 'blocked';
    task.result = outcome.kind === 'completed'
      ? outcome.reply
      : `${answer ? `${answer}\n` : ''}(The task stopped before it was done: ${outcome.kind === 'stopped' ? outcome.reason : 'the model failed'}.)`;
    this.absorb(draft, start, { messages: true, calls: true });
    this.emit('task-end', { taskId: task.id, status: task.status, result: task.result });
  }

  /** The summary: one model call, no tools, whose answer ends the turn. */
  private async summarize(): Promise<LoopOutcome> {
    const notRun = this.state.plan!.tasks.filter((task) => task.status === 'not_started').map((task) => task.title);
    const request = `${this.question}\n\nThe plan:\n${renderPlan(this.state.plan!)}\n\nResults:\n${renderResults(this.state.plan!)}${notRun.length > 0 ? `\n\nNot run (no rounds left): ${notRun.join('; ')}` : ''}`;
    const draft = this.subDraft(request);
    const start = draft.rounds;
    // Its text is the answer: the client watching the turn gets its deltas.
    const outcome = await runLoop({
      ...this.phase(this.loop.onEvent),
      tools: [],
      hooks: PASS_THROUGH,
      systemPrompt: `${this.loop.systemPrompt}\n\n${this.settings.summary.prompt}`,
      draft,
      ...(this.loop.answerCheck ? { answerCheck: this.loop.answerCheck } : {}),
      limits: { ...this.loop.limits, maxRounds: start + SUMMARY_ROUNDS },
    });
    this.absorb(draft, start, { messages: false, calls: false });
    const answer = outcome.kind === 'stopped' && outcome.reason === 'max_rounds' ? this.summaryCalledTools(draft) : outcome;
    if (answer.kind === 'completed') this.main.messages.push({ role: 'assistant', content: answer.reply, toolCalls: [] });
    return answer;
  }

  /**
   * The summary is offered no tools, so its one round ends `max_rounds` only when the model asked
   * for tools anyway. That is not the turn's round limit: its text is the answer when it wrote one
   * beside the calls (the calls, never run, are left out); without text it failed to answer.
   */
  private summaryCalledTools(draft: TurnDraft): LoopOutcome {
    const reply = draft.messages.findLast((message) => message.role === 'assistant');
    const text = reply?.content?.trim() ? reply.content : undefined;
    if (text !== undefined) return { kind: 'completed', reply: text };
    const names = [...new Set(reply?.role === 'assistant' ? reply.toolCalls.map((call) => call.name) : [])].join(', ');
    return {
      kind: 'failed',
      cause: new ModelError(
        'model_bad_response',
        `The model was asked for the final answer with no tools offered, and asked for ${names || 'a tool'} instead of writing the answer, after ${this.main.rounds} model calls; the tasks' results are in the plan.`,
      ),
    };
  }

  /** A phase's own draft: its request as the question, its rounds numbered after the turn's. */
  private subDraft(request: string): TurnDraft {
    const draft = newDraft(request);
    draft.rounds = this.main.rounds;
    return draft;
  }

  /**
   * An executor's draft starts with the turn's calls so far: the loop counts a draft's toolCalls
   * against tools.maxCallsPerTurn, which bounds the turn, not each task. They are the turn's
   * already, so only the executor's own are added to it (ownCalls).
   */
  private withTurnCalls(draft: TurnDraft): TurnDraft {
    draft.toolCalls = [...this.main.toolCalls];
    this.inheritedCalls.set(draft, draft.toolCalls.length);
    return draft;
  }

  private ownCalls(draft: TurnDraft): TurnDraft['toolCalls'] {
    return draft.toolCalls.slice(this.inheritedCalls.get(draft) ?? 0);
  }

  private taskRequest(task: PlanTask): string {
    return `Task ${task.id}: ${task.title}${task.details ? `\n${task.details}` : ''}\n\n(Part of the user's request: ${this.question})`;
  }

  /** The turn's loop input for a phase: no round record (phases that need one add it), these events, numbered for the turn. */
  private phase(onEvent: ((event: LoopEvent) => void) | undefined): LoopInput {
    // The answer's format is the summary's alone (summarize); a planner or executor answers in its own words.
    const { journal: _record, onEvent: _events, answerCheck: _format, ...base } = this.loop;
    return onEvent ? { ...base, onEvent: this.numbers.phase(onEvent) } : base;
  }

  /**
   * A phase's work becomes the turn's: its rounds and usage always; an executor's calls, and its
   * rounds that called tools (which join the turn's messages; a paused one's last round still open).
   */
  private absorb(draft: TurnDraft, start: number, keep: { messages: boolean; calls: boolean }): void {
    const main = this.main;
    main.rounds += draft.rounds - start;
    main.usage = addUsage(main.usage, draft.usage);
    if (keep.calls) {
      main.toolCalls.push(...this.ownCalls(draft));
      main.ran.push(...draft.ran);
    }
    if (keep.messages) main.messages.push(...toolRounds(draft.messages.slice(1)));
  }

  /** The round record of the turn: its messages, and those of the tasks under way. */
  private record(): Promise<void> {
    const blocks = [...this.inFlight.entries()].sort(([left], [right]) => left - right).map(([, draft]) => draft);
    const snapshot: TurnDraft = {
      ...this.main,
      messages: [...this.main.messages, ...blocks.flatMap((draft) => toolRounds(draft.messages.slice(1)))],
      toolCalls: [...this.main.toolCalls, ...blocks.flatMap((draft) => this.ownCalls(draft))],
    };
    // One write at a time, in the order asked: tasks side by side record the same item.
    this.recording = this.recording.then(() => this.loop.journal!.record(snapshot));
    return this.recording;
  }
}

/** Hooks of a phase that offers no extension anything (the summary). */
const PASS_THROUGH: LoopHooks = {
  prepareModelCall: async (plan) => plan,
  replied: async () => {},
  route: (call) => call,
  runTool: async () => ({ ok: false, text: 'No tool is offered here.' }),
};

/** The rounds that called tools (each with its answers), without the phase's answers in text. */
function toolRounds(messages: readonly HistoryMessage[]): HistoryMessage[] {
  return messages.filter((message) => message.role === 'tool' || (message.role === 'assistant' && message.toolCalls.length > 0));
}
