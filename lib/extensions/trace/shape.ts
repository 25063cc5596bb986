import type { Message, ProviderData, Reasoning, ToolCall } from '../../core/messages.ts';
import type { ModelReply } from '../../core/ports/model.ts';
import type { ToolDefinition } from '../../core/ports/tools.ts';
import { copyJson, freezeObjects } from '../../core/state-copy.ts';
import type { TraceMessage, TraceTool, TraceToolCall } from '../../core/turn-trace.ts';

/**
 * What a turn's trace shows of each model call: the request and the reply in the Chat Completions
 * shape (`tool_calls`, `tool_call_id`, tools as functions), which is what the OpenAI-compatible
 * adapter puts on the wire (lib/adapters/openai/wire.ts) and what a reader would send to reproduce
 * a call. The adapter's own repairs (an empty answer sent as "", arguments that are not a JSON
 * object wrapped) are not applied here: the trace shows the request as the loop made it. What is
 * not Chat Completions' own is shown neutrally: the reasoning's text as `reasoning`, and with
 * trace.contents `full` the provider data as it is kept (`provider_data`, each provider's own
 * entry: how each adapter sends it is the adapter's business).
 *
 * What these return is frozen as it is built (the trace keeps only frozen objects: book.ts), and
 * shares nothing with what they were given but strings: a tool's schema or a message's provider
 * data frozen in place would not be the trace's to freeze.
 */

/** Texts are replaced by their length when trace.contents is `none`. */
export type TraceContents = 'full' | 'none';

export function traceMessages(messages: readonly Message[], contents: TraceContents): TraceMessage[] {
  return messages.map((message) => traceMessage(message, contents));
}

export function traceMessage(message: Message, contents: TraceContents): TraceMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return Object.freeze({ role: message.role, content: kept(message.content, contents) });
    case 'tool':
      return Object.freeze({ role: 'tool', tool_call_id: message.toolCallId, name: message.name, content: kept(message.content, contents) });
    case 'assistant':
      return assistantMessage(message, contents);
  }
}

export function traceReply(reply: ModelReply, contents: TraceContents): TraceMessage {
  return assistantMessage(reply, contents);
}

export function traceTool(tool: ToolDefinition, contents: TraceContents): TraceTool {
  return Object.freeze({
    type: 'function',
    function: Object.freeze(contents === 'full' ? { name: tool.name, description: tool.description, parameters: frozenCopy(tool.parameters) } : { name: tool.name }),
  });
}

// Optional fields are added one by one (rather than spread in) in the order the trace has always
// written them: this runs for every message and reply of every model call.
function assistantMessage(
  message: { content: string | null; toolCalls: readonly ToolCall[]; reasoning?: Reasoning; providerData?: ProviderData },
  contents: TraceContents,
): TraceMessage {
  const traced: Extract<TraceMessage, { role: 'assistant' }> = { role: 'assistant', content: message.content === null ? null : kept(message.content, contents) };
  const calls = message.toolCalls;
  if (calls.length > 0) {
    const tracedCalls = new Array<TraceToolCall>(calls.length);
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index]!;
      const traceCall: TraceToolCall = { id: call.id, type: 'function', function: Object.freeze({ name: call.name, arguments: kept(call.arguments, contents) }) };
      if (call.providerData && contents === 'full') traceCall.provider_data = frozenCopy(call.providerData);
      tracedCalls[index] = Object.freeze(traceCall);
    }
    traced.tool_calls = tracedCalls;
  }
  if (message.reasoning) traced.reasoning = kept(message.reasoning.text, contents);
  if (message.providerData && contents === 'full') traced.provider_data = frozenCopy(message.providerData);
  return Object.freeze(traced);
}

const frozenCopy = <T>(value: T): T => freezeObjects(copyJson(value));

/** With `none`, a text becomes its length: enough to see what was sent, nothing of what it said. */
const kept = (text: string, contents: TraceContents): string => (contents === 'full' || text === '' ? text : `[${text.length} characters]`);
