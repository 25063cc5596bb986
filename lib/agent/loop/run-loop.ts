import { randomUUID } from 'node:crypto';
import { addUsage } from '../../core/budget.ts';
import { sharedDeadline } from '../../core/deadline.ts';
import { BudgetExhaustedError, errorMessage, ModelError } from '../../core/errors.ts';
import type { AssistantMessage, HistoryMessage, ToolCall, ToolMessage, UserMessage } from '../../core/messages.ts';
import type { ModelClient, ModelDelta, ModelReply } from '../../core/ports/model.ts';
import type { LoopHooks } from '../extension-api/extension-runner.ts';
import type { AnswerCheck } from './answer-check.ts';
import { STOP_RULES, type LoopOutcome } from './stop-rules.ts';
import type { LoopEvent } from './loop-events.ts';
import { planCalls, plannedName, type CallLimits } from './tool-plan.ts';
import type { OfferedTool } from './tool-policy.ts';
import { answerCalls, type Journal, type ToolRoundOutcome } from './tool-round.ts';
import type { TurnDraft } from '../turn/turn-draft.ts';

export interface LoopLimits extends CallLimits {
  maxRounds: number;
  modelTimeoutMs: number;
  toolTimeoutMs: number;
  /** A call whose server keeps reporting progress may run this long in all (default: toolTimeoutMs). */
  maxToolCallMs?: number;
  maxOutputChars: number;
  /** All tool results of one loop together (tools.maxTurnOutputChars). */
  maxTurnOutputChars: number;
  maxConcurrentCalls: number;
  /** Kept back before the deadline to store the turn. */
  reserveMs: number;
}

export interface LoopInput {
  model: ModelClient;
  /** Every tool offered (MCP tools after policy, built-in tools). */
  tools: readonly OfferedTool[];
  /** The extensions' part in each round: the request sent, the reply, routing and running calls. */
  hooks: LoopHooks;
  systemPrompt: string;
  /** Earlier turns, as sent to the model before this turn's messages. */
  history: readonly HistoryMessage[];
  /** This turn so far; the loop appends to it (a message a record holds is frozen: held-turn.ts). A resumed turn's draft already has rounds. */
  draft: TurnDraft;
  limits: LoopLimits;
  /** Epoch ms by which the turn must be stored. */
  deadlineAt: number;
  journal?: Journal;
  onEvent?: (event: LoopEvent) => void;
  now?: () => number;
  /** The turn asked for a structured answer: sent with each model call, and each final answer checked. */
  answerCheck?: AnswerCheck;
}

export type { LoopOutcome } from './stop-rules.ts';

/** What one round decided: the discriminated union the loop switches on. */
type RoundOutcome = { kind: 'run-again' } | LoopOutcome;

/**
 * The bounded loop:
 *
 *   for round in rounds+1..maxRounds:     each model reply is one round
 *     reply = model(system, history, draft, tools)   stop 'deadline' if no time is left
 *     append assistant(reply)
 *     the stop rules (stop-rules.ts), in order; the first that applies ends the loop:
 *       an answer that does not fit the turn's responseFormat
 *                           -> sent back with its problems, another round (invalid_output at maxRounds)
 *       no tool calls       -> completed   (decided on tool calls, never on finish_reason)
 *       round == maxRounds  -> answer each call "not executed", stop 'max_rounds'
 *       no time left        -> answer each call "out of time", stop 'deadline'
 *     plan the calls (limits, policy, arguments, approval), answer them (run, record), or pause
 *
 * Every exit but a pause leaves each assistant tool call answered by its tool message (the history
 * invariant); a pause leaves exactly the calls awaiting approval unanswered, and nothing follows them.
 */
export async function runLoop(input: LoopInput): Promise<LoopOutcome> {
  const now = input.now ?? Date.now;
  const { draft, limits } = input;
  const toolsByName = new Map(input.tools.map((tool) => [tool.name, tool]));
  // The loop stops in time to store the turn: its end is the turn's deadline less the time kept for that.
  const loopEnd = input.deadlineAt - limits.reserveMs;
  const timeLeft = () => loopEnd - now();
  // The rounds' calls end when the loop's time does: one timer for all of them, ended with the loop.
  const callsDeadline = sharedDeadline(loopEnd, now, 1);
  // Ids the model must not reuse: a repeated id would make two tool messages answer one call.
  const seenIds = new Set([...input.history, ...draft.messages].flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((call) => call.id) : [])));

  const runRound = async (round: number): Promise<RoundOutcome> => {
    if (timeLeft() <= 0) return { kind: 'stopped', reason: 'deadline' };
    input.onEvent?.({ type: 'round-start', round });
    const plan = await input.hooks.prepareModelCall({ systemPrompt: input.systemPrompt, messages: [...input.history, ...draft.messages], tools: [...input.tools] }, round);
    const budget = timeLeft();
    let reply: ModelReply;
    try {
      const onEvent = input.onEvent;
      reply = await input.model.complete({
        messages: [{ role: 'system', content: plan.systemPrompt }, ...plan.messages],
        tools: plan.tools,
        timeoutMs: Math.min(limits.modelTimeoutMs, budget),
        // Someone watches the turn: the model streams, and each piece is passed on as it comes.
        ...(onEvent ? { onDelta: (delta: ModelDelta) => onEvent({ type: delta.kind === 'text' ? 'text-delta' : 'reasoning-delta', round, text: delta.text }) } : {}),
        ...(input.answerCheck ? { responseFormat: input.answerCheck.format } : {}),
      });
    } catch (error) {
      // A model cut short by the turn's own deadline is a deadline stop, not a model failure.
      const cutByDeadline = error instanceof ModelError && error.timeout && budget < limits.modelTimeoutMs && timeLeft() <= 0;
      if (cutByDeadline) return { kind: 'stopped', reason: 'deadline' };
      // A spent budget ends the turn as it is (lib/agent/turn/drive-turn.ts says how); nothing was sent.
      if (error instanceof BudgetExhaustedError) return { kind: 'failed', cause: error };
      // A model client that throws something else is still a model that failed.
      return { kind: 'failed', cause: error instanceof ModelError ? error : new ModelError('model_unavailable', 'The model client failed.', { cause: error, detail: errorMessage(error) }) };
    }
    draft.rounds = round;
    draft.usage = addUsage(draft.usage, reply.usage);
    const assistant: AssistantMessage = { role: 'assistant', content: reply.content, toolCalls: withFreshIds(reply.toolCalls, seenIds) };
    if (reply.reasoning) assistant.reasoning = reply.reasoning;
    // Kept for the adapter that wrote it, which alone reads it back (core/messages.ts, ProviderData).
    if (reply.providerData) assistant.providerData = reply.providerData;
    draft.messages.push(assistant);
    await input.hooks.replied({ ...reply, toolCalls: assistant.toolCalls }, round);
    const calls = assistant.toolCalls;
    const verdict = calls.length === 0 ? input.answerCheck?.check(reply.content) : undefined;
    const afterReply = { round, maxRounds: limits.maxRounds, content: reply.content, calls, ...(reply.stop ? { stop: reply.stop } : {}), timeLeftMs: timeLeft(), ...(verdict ? { verdict } : {}) };
    for (const rule of STOP_RULES) {
      const decided = rule(afterReply);
      if (!decided) continue;
      if ('sendBack' in decided) {
        const feedback: UserMessage = { role: 'user', content: input.answerCheck!.feedback(decided.sendBack) };
        draft.messages.push(feedback);
        sentBack.add(feedback);
        return { kind: 'run-again' };
      }
      // Calls of a reply the loop stops at never run, and each is answered (the history invariant).
      if (decided.callsAnsweredWith !== undefined) draft.messages.push(...unexecuted(calls, decided.callsAnsweredWith));
      return decided.outcome;
    }
    const policy = input.hooks.callPolicy;
    const planned = planCalls(calls, { tools: toolsByName, limits, callsSoFar: draft.toolCalls.length, route: (call) => input.hooks.route(call), ...(policy ? { policy } : {}) });
    for (const entry of planned) {
      input.onEvent?.({ type: 'tool-call', round, call: { id: entry.call.id, name: plannedName(entry), arguments: entry.arguments } });
    }
    // The round's calls end with the turn's time (one timer for every round's: sharedDeadline).
    const answered = await callsDeadline.run((signal) =>
      answerCalls(planned, {
        draft,
        round,
        toolRun: {
          runTool: (call, tool) => input.hooks.runTool(call, tool),
          timeoutMs: Math.max(1, Math.min(limits.toolTimeoutMs, timeLeft())),
          maxTimeoutMs: Math.max(1, Math.min(limits.maxToolCallMs ?? limits.toolTimeoutMs, timeLeft())),
          maxOutputChars: limits.maxOutputChars,
          maxTurnOutputChars: limits.maxTurnOutputChars,
          maxConcurrentCalls: limits.maxConcurrentCalls,
          signal,
          now,
        },
        ...(input.journal ? { journal: input.journal } : {}),
        ...(input.onEvent ? { onEvent: input.onEvent } : {}),
      }),
    );
    if (answered.kind === 'not-recorded') return { kind: 'failed', cause: answered.cause };
    if (answered.kind === 'waiting') return pausedFor(answered, round, input.onEvent);
    return { kind: 'run-again' };
  };

  // Answers sent back for not validating, each with the rejected reply before it: sent to the model
  // for the rest of the loop, never stored (docs/structured-answers.md).
  const sentBack = new Set<HistoryMessage>();
  try {
    // Rounds are read from the draft each time: an MCP server's sampling during a round's calls counts one too.
    while (draft.rounds < limits.maxRounds) {
      const outcome = await runRound(draft.rounds + 1);
      if (outcome.kind !== 'run-again') return outcome;
    }
    // A resumed turn whose pause used its last round, or a round whose calls sampled the last ones.
    return { kind: 'stopped', reason: 'max_rounds' };
  } finally {
    callsDeadline.end();
    if (sentBack.size > 0) dropSentBack(draft.messages, sentBack);
  }
}

/** Takes each sent-back message, and the rejected reply right before it, out of the turn's messages. */
function dropSentBack(messages: HistoryMessage[], sentBack: ReadonlySet<HistoryMessage>): void {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (sentBack.has(messages[index]!)) {
      messages.splice(index - 1, 2);
      index -= 1;
    }
  }
}

/** A round whose calls wait for a person: announced (one event per kind that waits), then the pause. */
export function pausedFor(waiting: Extract<ToolRoundOutcome, { kind: 'waiting' }>, round: number, onEvent: ((event: LoopEvent) => void) | undefined): LoopOutcome {
  const { pending, elicitations } = waiting;
  if (pending.length > 0) onEvent?.({ type: 'approval-required', round, pendingApprovals: pending });
  if (elicitations.length > 0) onEvent?.({ type: 'elicitation-required', round, pendingElicitations: elicitations });
  return { kind: 'paused', pending, ...(elicitations.length > 0 ? { elicitations } : {}) };
}

function withFreshIds(calls: readonly ToolCall[], seenIds: Set<string>): ToolCall[] {
  return calls.map((call) => {
    const id = seenIds.has(call.id) ? `call_${randomUUID().replaceAll('-', '').slice(0, 24)}` : call.id;
    seenIds.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

const unexecuted = (calls: readonly ToolCall[], text: string): ToolMessage[] =>
  calls.map((call) => ({ role: 'tool', toolCallId: call.id, name: call.name, content: text }));
