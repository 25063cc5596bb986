import { errorMessage } from '../core/errors.ts';
import type { ToolCall, ToolMessage } from '../core/messages.ts';
import type { JsonObject, ToolDefinition, ToolGateway } from '../core/ports.ts';
import type { ToolCallRecord } from '../core/turn.ts';
import { toolText, truncateOutput } from './tool-messages.ts';
import { checkArguments } from './validate-arguments.ts';

export interface ToolExecutionContext {
  gateway: ToolGateway;
  tools: ReadonlyMap<string, ToolDefinition>;
  timeoutMs: number;
  maxOutputChars: number;
  /** Aborts every call of the round (the turn's deadline). */
  signal: AbortSignal;
  now: () => number;
}

export interface ExecutedCall {
  message: ToolMessage;
  record: ToolCallRecord;
}

/**
 * Runs one reply's tool calls concurrently and returns their results in the calls' order. Never
 * throws: every failure becomes the text of the call's tool message, so the model can act on it.
 */
export function executeToolCalls(calls: readonly ToolCall[], context: ToolExecutionContext): Promise<ExecutedCall[]> {
  return Promise.all(calls.map((call) => executeToolCall(call, context)));
}

async function executeToolCall(call: ToolCall, context: ToolExecutionContext): Promise<ExecutedCall> {
  const started = context.now();
  const parsed = parseArguments(call.arguments);
  const finish = (ok: boolean, text: string): ExecutedCall => ({
    message: { role: 'tool', toolCallId: call.id, name: call.name, content: truncateOutput(text, context.maxOutputChars) },
    record: { id: call.id, name: call.name, arguments: parsed.ok ? parsed.value : call.arguments, ok, durationMs: context.now() - started },
  });

  const tool = context.tools.get(call.name);
  if (!tool) return finish(false, toolText.unknownTool(call.name, [...context.tools.keys()]));
  if (!parsed.ok) return finish(false, parsed.reason === 'not-object' ? toolText.notAnObject(call.name) : toolText.invalidJson(call.name, parsed.reason));
  const check = checkArguments(tool.parameters, parsed.value);
  if (!check.valid) return finish(false, toolText.invalidArguments(call.name, check.problems));

  const timeout = AbortSignal.timeout(context.timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout]);
  try {
    const output = await context.gateway.callTool(call.name, parsed.value, { signal, timeoutMs: context.timeoutMs });
    return finish(output.ok, output.ok ? output.text : toolText.toolError(output.text));
  } catch (error) {
    if (signal.aborted) {
      return finish(false, context.signal.aborted ? toolText.cancelledAtDeadline(call.name) : toolText.timedOut(call.name, context.timeoutMs));
    }
    return finish(false, toolText.failed(call.name, errorMessage(error)));
  }
}

type ParsedArguments = { ok: true; value: JsonObject } | { ok: false; reason: string };

function parseArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: errorMessage(error) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'not-object' };
  return { ok: true, value: value as JsonObject };
}
