import { randomUUID } from 'node:crypto';
import { errorMessage, ModelError } from '../core/errors.ts';
import type { AssistantMessage, HistoryMessage, TokenUsage, ToolCall, ToolMessage } from '../core/messages.ts';
import type { ModelClient, ModelReply, ToolDefinition, ToolGateway } from '../core/ports.ts';
import type { StopReason, ToolCallRecord, TurnError } from '../core/turn.ts';
import { executeToolCalls } from './execute-tools.ts';
import { fallbackReply } from './fallback-reply.ts';
import { toolText } from './tool-messages.ts';
import type { LoopEvent } from './events.ts';

export interface LoopInput {
  model: ModelClient;
  gateway: ToolGateway;
  tools: readonly ToolDefinition[];
  systemPrompt: string;
  history: readonly HistoryMessage[];
  question: string;
  maxRounds: number;
  /** Epoch ms by which the turn must be stored. */
  deadlineAt: number;
  /** Kept back before the deadline to store the turn. */
  reserveMs: number;
  modelTimeoutMs: number;
  toolTimeoutMs: number;
  maxOutputChars: number;
  onEvent?: (event: LoopEvent) => void;
  now?: () => number;
}

export interface LoopOutcome {
  /** This turn's messages: the question and everything the loop appended. */
  messages: HistoryMessage[];
  stopReason: StopReason;
  rounds: number;
  reply: string;
  toolCalls: ToolCallRecord[];
  usage: TokenUsage;
  error?: TurnError;
  /** The model failure behind `stopReason: 'error'`. */
  cause?: unknown;
}

/** What one round decided: the discriminated union the loop switches on. */
type RoundOutcome =
  | { kind: 'final'; reply: string }
  | { kind: 'run-again' }
  | { kind: 'stop'; reason: Exclude<StopReason, 'completed'>; error?: TurnError; cause?: unknown };

/**
 * The bounded loop:
 *
 *   messages = [system, ...history, user]
 *   for round in 1..maxRounds:           each model reply is one round
 *     reply = model(messages, tools)     stop 'deadline' if no time is left, 'error' if it fails
 *     append assistant(reply)
 *     no tool calls       -> stop 'completed'   (decided on tool calls, never on finish_reason)
 *     round == maxRounds  -> answer each call "not executed", stop 'max_rounds'
 *     run the calls concurrently; append one tool message per call, in the calls' order
 *
 * Every exit leaves each assistant tool call answered by its tool message (the history invariant).
 */
export async function runLoop(input: LoopInput): Promise<LoopOutcome> {
  const now = input.now ?? Date.now;
  const messages: HistoryMessage[] = [{ role: 'user', content: input.question }];
  const toolCalls: ToolCallRecord[] = [];
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const toolsByName = new Map(input.tools.map((tool) => [tool.name, tool]));
  const timeLeft = () => input.deadlineAt - input.reserveMs - now();
  let rounds = 0;
  // Ids the model must not reuse: a repeated id would make two tool messages answer one call.
  const seenIds = new Set(input.history.flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((call) => call.id) : [])));

  const runRound = async (round: number): Promise<RoundOutcome> => {
    if (timeLeft() <= 0) return { kind: 'stop', reason: 'deadline' };
    input.onEvent?.({ type: 'round-start', round });
    const budget = timeLeft();
    let reply: ModelReply;
    try {
      reply = await input.model.complete({
        messages: [{ role: 'system', content: input.systemPrompt }, ...input.history, ...messages],
        tools: [...input.tools],
        timeoutMs: Math.min(input.modelTimeoutMs, budget),
      });
    } catch (error) {
      // A model cut short by the turn's own deadline is a deadline stop, not a model failure.
      const cutByDeadline = error instanceof ModelError && error.timeout && budget < input.modelTimeoutMs && timeLeft() <= 0;
      if (cutByDeadline) return { kind: 'stop', reason: 'deadline' };
      return { kind: 'stop', reason: 'error', error: turnError(error), cause: error };
    }
    rounds = round;
    usage.promptTokens += reply.usage.promptTokens;
    usage.completionTokens += reply.usage.completionTokens;
    const assistant: AssistantMessage = { role: 'assistant', content: reply.content, toolCalls: withFreshIds(reply.toolCalls, seenIds) };
    if (reply.reasoning) assistant.reasoning = reply.reasoning;
    if (reply.extraContent) assistant.extraContent = reply.extraContent;
    messages.push(assistant);
    const calls = assistant.toolCalls;
    if (calls.length === 0) return { kind: 'final', reply: reply.content ?? '' };

    if (round >= input.maxRounds) {
      messages.push(...unexecuted(calls, toolText.notExecuted(input.maxRounds)));
      return { kind: 'stop', reason: 'max_rounds' };
    }
    // A reply that arrives with no time left must not start tools it could never wait for.
    if (timeLeft() <= 0) {
      messages.push(...unexecuted(calls, toolText.outOfTime()));
      return { kind: 'stop', reason: 'deadline' };
    }
    for (const call of calls) input.onEvent?.({ type: 'tool-call', round, call });
    const executed = await executeToolCalls(calls, {
      gateway: input.gateway,
      tools: toolsByName,
      timeoutMs: Math.max(1, Math.min(input.toolTimeoutMs, timeLeft())),
      maxOutputChars: input.maxOutputChars,
      signal: AbortSignal.timeout(Math.max(1, timeLeft())),
      now,
    });
    for (const { message, record } of executed) {
      messages.push(message);
      toolCalls.push(record);
      input.onEvent?.({ type: 'tool-result', round, result: record });
    }
    return { kind: 'run-again' };
  };

  for (let round = 1; round <= input.maxRounds; round++) {
    const outcome = await runRound(round);
    if (outcome.kind === 'run-again') continue;
    const base = { messages, rounds, toolCalls, usage };
    if (outcome.kind === 'final') return { ...base, stopReason: 'completed', reply: outcome.reply };
    const stopped: LoopOutcome = { ...base, stopReason: outcome.reason, reply: fallbackReply(outcome.reason, messages, input.maxRounds, outcome.error) };
    if (outcome.error) stopped.error = outcome.error;
    if (outcome.cause !== undefined) stopped.cause = outcome.cause;
    return stopped;
  }
  // Unreachable: the last round either ends the turn or stops at max_rounds.
  throw new Error('runLoop: round limit passed without a stop');
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

function turnError(error: unknown): TurnError {
  if (error instanceof ModelError) return { code: error.code, message: error.message, timeout: error.timeout };
  return { code: 'model_unavailable', message: errorMessage(error), timeout: false };
}
