/**
 * Message and tool contents in the conventions' shapes, for telemetry.captureContent only:
 * gen_ai.system_instructions, gen_ai.input.messages and gen_ai.output.messages as JSON text (the
 * "parts" shape: text, tool_call and tool_call_response parts), and gen_ai.tool.call.arguments and
 * gen_ai.tool.call.result on a tool's span.
 */
import type { Message } from '../../core/messages.ts';
import type { ModelReply } from '../../core/ports/model.ts';
import type { TelemetryAttributes } from '../../core/ports/telemetry.ts';

type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string };

interface ConventionMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

export function requestContent(messages: readonly Message[]): TelemetryAttributes {
  const system = messages.filter((message) => message.role === 'system').map((message) => ({ type: 'text', content: message.content }));
  const input = messages.filter((message) => message.role !== 'system').map(conventionMessage);
  return {
    ...(system.length > 0 ? { 'gen_ai.system_instructions': JSON.stringify(system) } : {}),
    'gen_ai.input.messages': JSON.stringify(input),
  };
}

export function replyContent(reply: ModelReply, finishReason: string): TelemetryAttributes {
  const message = conventionMessage({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls, ...(reply.reasoning ? { reasoning: reply.reasoning } : {}) });
  return { 'gen_ai.output.messages': JSON.stringify([{ ...message, finish_reason: finishReason }]) };
}

function conventionMessage(message: Message): ConventionMessage {
  switch (message.role) {
    case 'user':
    case 'system':
      return { role: message.role, parts: [{ type: 'text', content: message.content }] };
    case 'tool':
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: message.toolCallId, response: message.content }] };
    case 'assistant':
      return {
        role: 'assistant',
        parts: [
          ...(message.reasoning ? [{ type: 'reasoning' as const, content: message.reasoning.text }] : []),
          ...(message.content ? [{ type: 'text' as const, content: message.content }] : []),
          ...message.toolCalls.map((call) => ({ type: 'tool_call' as const, id: call.id, name: call.name, arguments: parsedOrText(call.arguments) })),
        ],
      };
  }
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
