import { errorMessage } from '../core/errors.ts';
import type { ToolCall, ToolMessage } from '../core/messages.ts';
import type { JsonObject, ToolGateway } from '../core/ports.ts';
import type { ToolCallRecord } from '../core/turn.ts';
import { toolText, truncateOutput } from './tool-messages.ts';

export interface ToolExecutionContext {
  gateway: ToolGateway;
  /** Per call. */
  timeoutMs: number;
  maxOutputChars: number;
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

export interface CallToRun {
  call: ToolCall;
  arguments: JsonObject;
}

/**
 * Runs calls, at most `maxConcurrentCalls` at once, and returns their answers in the calls' order
 * (each is also handed to `onAnswered` as soon as it is there).
 * Never throws: every failure becomes the text of the call's tool message, so the model can act on it.
 */
export async function executeToolCalls(
  calls: readonly CallToRun[],
  context: ToolExecutionContext,
  onAnswered?: (index: number, answer: AnsweredCall) => void,
): Promise<AnsweredCall[]> {
  const answers: AnsweredCall[] = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      answers[index] = await executeToolCall(calls[index]!, context);
      onAnswered?.(index, answers[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(context.maxConcurrentCalls, calls.length) }, worker));
  return answers;
}

async function executeToolCall({ call, arguments: args }: CallToRun, context: ToolExecutionContext): Promise<AnsweredCall> {
  const started = context.now();
  const finish = (ok: boolean, text: string) => answered(call, args, ok, text, context.maxOutputChars, context.now() - started);
  if (context.signal.aborted) return finish(false, toolText.outOfTime());
  const timeout = AbortSignal.timeout(context.timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout]);
  try {
    const output = await context.gateway.callTool(call.name, args, { signal, timeoutMs: context.timeoutMs });
    return finish(output.ok, output.ok ? output.text : toolText.toolError(output.text));
  } catch (error) {
    if (signal.aborted) {
      return finish(false, context.signal.aborted ? toolText.cancelledAtDeadline(call.name) : toolText.timedOut(call.name, context.timeoutMs));
    }
    return finish(false, toolText.failed(call.name, errorMessage(error)));
  }
}

/** A call's answer, its text capped at `maxOutputChars` for the model. */
export function answered(call: ToolCall, args: unknown, ok: boolean, text: string, maxOutputChars: number, durationMs = 0): AnsweredCall {
  return {
    message: { role: 'tool', toolCallId: call.id, name: call.name, content: truncateOutput(text, maxOutputChars) },
    record: { id: call.id, name: call.name, arguments: args, ok, durationMs },
  };
}
