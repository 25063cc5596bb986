/**
 * Domain messages and tools → the Chat Completions request shapes. The inverse direction is
 * normalize.ts. What we send back must be accepted by every provider, so a few things are
 * repaired on the way out (arguments that are not a JSON object, empty assistant turns).
 */
import type { AssistantMessage, Message, ToolCall } from '../../core/messages.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ToolDefinition } from '../../core/ports/tools.ts';
import { callData, messageData } from './provider-data.ts';

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  extra_content?: Record<string, unknown>;
}

type WireAssistantMessage = {
  role: 'assistant';
  content: string | null;
  tool_calls?: WireToolCall[];
} & { [reasoningField: string]: unknown };

/** A user message's parts when it carries images (Chat Completions content parts). */
type WireContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | WireContentPart[] }
  | WireAssistantMessage
  | { role: 'tool'; tool_call_id: string; name: string; content: string };

interface WireTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonObject };
}

export function toWireMessages(messages: Message[]): WireMessage[] {
  return messages.map((message): WireMessage => {
    switch (message.role) {
      case 'system':
        return { role: message.role, content: message.content };
      case 'user':
        // Images go as data URLs: the tool's own bytes, never a URL the provider would fetch.
        if (!message.images?.length) return { role: message.role, content: message.content };
        return {
          role: 'user',
          content: [
            { type: 'text', text: message.content },
            ...message.images.map((image) => ({ type: 'image_url' as const, image_url: { url: `data:${image.mimeType};base64,${image.data}` } })),
          ],
        };
      case 'assistant':
        return toWireAssistant(message);
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, name: message.name, content: message.content };
    }
  });
}

/** A stored reasoning field can never overwrite the message's own keys. */
const RESERVED_FIELDS = new Set(['role', 'content', 'tool_calls', 'extra_content']);

/** What this adapter kept on the message comes back; another provider's data never does. */
function toWireAssistant(message: AssistantMessage): WireAssistantMessage {
  const hasCalls = message.toolCalls.length > 0;
  const own = messageData(message);
  return {
    role: 'assistant',
    // `content: null` is only valid next to tool calls; an empty answer is sent as "".
    content: message.content ?? (hasCalls ? null : ''),
    ...(hasCalls
      ? {
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: replayedArguments(call) },
            ...wireExtraContent(callData(call).extraContent),
          })),
        }
      : {}),
    // DeepSeek answers 400 unless the reasoning of a tool-calling turn comes back under its own field.
    ...(own.reasoningField !== undefined && !RESERVED_FIELDS.has(own.reasoningField)
      ? { [own.reasoningField]: message.reasoning?.text ?? '' }
      : {}),
    // Only where the provider sent it: other providers never see the field.
    ...wireExtraContent(own.extraContent),
  };
}

const wireExtraContent = (extraContent: JsonObject | undefined) => (extraContent ? { extra_content: extraContent } : {});

/**
 * Arguments exactly as the model wrote them when they are a JSON object. Anything else (broken
 * JSON, a bare string or number) is wrapped into an object: backends that store arguments as a
 * dictionary (Anthropic through OpenRouter or Vertex) reject the whole conversation otherwise, on
 * every later turn (quirks report §2.2).
 */
/**
 * Every round sends the turn's earlier calls and the history's again, the same call objects each
 * time: each call's arguments are checked once and the verdict kept with the call, rather than
 * parsed again on every round (which grew with the conversation: a history of 100 calls parsed 100
 * arguments per model call). Kept only while the arguments are the ones checked.
 */
const replayed = new WeakMap<ToolCall, { raw: string; replayable: string }>();

function replayedArguments(call: ToolCall): string {
  const known = replayed.get(call);
  if (known !== undefined && known.raw === call.arguments) return known.replayable;
  const replayable = replayableArguments(call.arguments);
  replayed.set(call, { raw: call.arguments, replayable });
  return replayable;
}

export function replayableArguments(raw: string): string {
  if (raw.trim() === '') return '{}';
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return raw;
  } catch {
    // not JSON: wrapped below
  }
  return JSON.stringify({ invalid_json: raw });
}

export function toWireTools(tools: ToolDefinition[]): WireTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}
