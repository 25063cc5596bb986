import { idleDeadlineSignal } from '../../core/deadline.ts';
import { errorMessage } from '../../core/errors.ts';
import type { ToolCall, ToolMessage } from '../../core/messages.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ToolOutput, ToolProgress } from '../../core/ports/tools.ts';
import type { ToolCallRecord } from '../../core/turn.ts';
import { AwaitingInput, type AwaitedInput, type CallInput } from './call-input.ts';
import type { RunningCall } from '../extension-api/extension.ts';
import { toolText, truncateOutput } from './tool-messages.ts';
import type { OfferedTool } from './tool-policy.ts';

export interface ToolRunContext {
  /** Runs one call: its MCP server or built-in tool (through the extensions' aroundToolCall). */
  runTool: (call: RunningCall, tool: OfferedTool) => Promise<ToolOutput>;
  /** Per call: without an answer, or (once its server reports progress) without progress. */
  timeoutMs: number;
  /** Per call, in all, however long its progress keeps extending `timeoutMs` (tools.maxCallSeconds). */
  maxTimeoutMs?: number;
  /** A running call's server reported progress. */
  onProgress?: (call: { id: string; name: string }, progress: ToolProgress) => void;
  maxOutputChars: number;
  /** The tool output the turn carries, all results together; answerCalls (tool-round.ts) cuts past it. */
  maxTurnOutputChars: number;
  /** Calls running at once; the rest wait for a free slot. */
  maxConcurrentCalls: number;
  /** Aborts every call (the turn's deadline). */
  signal: AbortSignal;
  now: () => number;
}

/** A call answered: the tool message the model reads and the record the caller sees. */
export interface AnsweredCall {
  message: ToolMessage;
  record: ToolCallRecord;
}

interface CallToRun {
  /** The call as the model made it: its answer goes to this id. */
  call: ToolCall;
  /** The tool it runs (another one than the call names, when a routing tool stands for it). */
  tool: OfferedTool;
  arguments: JsonObject;
  /** A paused call run again: the person's answer to what it asked (call-input.ts). */
  input?: CallInput;
  /** The call policy's decision, for the call's record. */
  policy?: ToolCallRecord['policy'];
}

/** A call left unanswered: its MCP server asked for what only a person can give (call-input.ts). */
interface WaitingCall {
  awaiting: AwaitedInput;
}

/**
 * Runs calls, at most `maxConcurrentCalls` at once, and returns their answers in the calls' order
 * (each is also handed to `onAnswered` as soon as it is there). Never throws: every failure becomes
 * the text of the call's tool message, so the model can act on it.
 */
export async function runToolCalls(
  calls: readonly CallToRun[],
  context: ToolRunContext,
  onAnswered?: (index: number, answer: AnsweredCall | WaitingCall) => void,
): Promise<Array<AnsweredCall | WaitingCall>> {
  const answers: Array<AnsweredCall | WaitingCall> = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      answers[index] = await runToolCall(calls[index]!, context);
      onAnswered?.(index, answers[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(context.maxConcurrentCalls, calls.length) }, worker));
  return answers;
}

async function runToolCall({ call, tool, arguments: args, input, policy }: CallToRun, context: ToolRunContext): Promise<AnsweredCall | WaitingCall> {
  const started = context.now();
  const finish = (ok: boolean, text: string) => answered(call, args, ok, text, context.maxOutputChars, { durationMs: context.now() - started, name: tool.name, ...(policy ? { policy } : {}) });
  if (context.signal.aborted) return finish(false, toolText.outOfTime());
  const maxTimeoutMs = Math.max(context.timeoutMs, context.maxTimeoutMs ?? context.timeoutMs);
  // The call's own time limit, and the round's signal (the turn's deadline) it follows.
  const timeout = idleDeadlineSignal(context.timeoutMs, maxTimeoutMs, context.signal);
  const signal = timeout.signal;
  // Progress keeps a long call alive (up to maxTimeoutMs) and reaches streaming clients.
  const onProgress = (progress: ToolProgress) => {
    timeout.extend();
    context.onProgress?.({ id: call.id, name: tool.name }, progress);
  };
  try {
    const running: RunningCall = { id: call.id, name: tool.name, arguments: args, signal, timeoutMs: context.timeoutMs, maxTimeoutMs, onProgress, ...(tool.server ? { server: tool.server } : {}), ...(input ? { input } : {}), ...(policy ? { policy } : {}) };
    const output = await context.runTool(running, tool);
    return finish(output.ok, output.ok ? output.text : toolText.toolError(output.text));
  } catch (error) {
    if (error instanceof AwaitingInput) return { awaiting: error.awaited };
    if (signal.aborted) {
      return finish(false, context.signal.aborted ? toolText.cancelledAtDeadline(tool.name) : toolText.timedOut(tool.name, context.timeoutMs));
    }
    return finish(false, toolText.failed(tool.name, errorMessage(error)));
  } finally {
    timeout.clear();
  }
}

/**
 * A call's answer, its text capped at `maxOutputChars` for the model. The tool message answers the
 * model's own call; the record names the tool that ran (`name`, when a routing tool stood for it).
 */
export function answered(call: ToolCall, args: unknown, ok: boolean, text: string, maxOutputChars: number, run: { durationMs?: number; name?: string; policy?: ToolCallRecord['policy'] } = {}): AnsweredCall {
  return {
    message: { role: 'tool', toolCallId: call.id, name: call.name, content: truncateOutput(text, maxOutputChars) },
    record: { id: call.id, name: run.name ?? call.name, arguments: args, ok, durationMs: run.durationMs ?? 0, ...(run.policy ? { policy: run.policy } : {}) },
  };
}
