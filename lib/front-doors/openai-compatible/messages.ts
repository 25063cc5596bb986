/**
 * Chat Completions `messages` (the wire shapes of lib/adapters/openai/wire.ts, as clients send
 * them) → the agent's question, the earlier messages as domain messages, and the instructions:
 *
 *   system, developer        → instructions (after agent.yml's system prompt), wherever they stand
 *   the last other message   → the question: it must be a user message with text
 *   user, assistant, tool    → earlier messages (assistant tool_calls and tool answers kept, so the
 *                              model sees the client's tool history; the agent checks its invariant)
 *
 * Content is a string or an array of parts; text parts are joined by blank lines. Anything that is
 * not text (images, audio, files) cannot be passed on, and is refused rather than dropped.
 */
import { isJsonObject } from '../../core/json.ts';
import type { AssistantMessage, HistoryMessage, ToolCall } from '../../core/messages.ts';
import { ParameterError } from './errors.ts';

interface ChatMessages {
  question: string;
  /** Only when the earlier messages are the history (no stored conversation named). */
  earlierMessages: HistoryMessage[];
  instructions?: string;
}

const INSTRUCTION_ROLES = new Set(['system', 'developer']);

/**
 * `earlier: false` (a stored conversation continues) reads only the instructions and the question:
 * the conversation's own history is what the model sees, so earlier messages are neither read nor
 * checked.
 */
export function readChatMessages(value: unknown, options: { earlier: boolean }): ChatMessages {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ParameterError('invalid_messages', '"messages" must be a non-empty array of messages, the last one the user\'s question: [{"role": "user", "content": "..."}].', 'messages');
  }
  const messages = value.map((message: unknown, index) => {
    if (!isJsonObject(message) || typeof message.role !== 'string') {
      throw new ParameterError('invalid_messages', `messages[${index}] must be an object with a "role" and "content".`, `messages[${index}]`);
    }
    return { message, index, role: message.role };
  });
  const instructions = messages.filter((entry) => INSTRUCTION_ROLES.has(entry.role)).map((entry) => textOf(entry.message.content, entry.index)).filter((text) => text.trim() !== '');
  const conversation = messages.filter((entry) => !INSTRUCTION_ROLES.has(entry.role));
  const last = conversation.at(-1);
  if (last?.role !== 'user') {
    const got = last ? `the last one has the role "${last.role}"` : 'there is none';
    throw new ParameterError('invalid_messages', `The last message (after system and developer messages) must be the user's question, with the role "user"; ${got}.`, last ? `messages[${last.index}].role` : 'messages');
  }
  const question = textOf(last.message.content, last.index);
  if (question.trim() === '') throw new ParameterError('empty_message', `The user's question, messages[${last.index}].content, is empty.`, `messages[${last.index}].content`);
  return {
    question,
    earlierMessages: options.earlier ? toHistory(conversation.slice(0, -1)) : [],
    ...(instructions.length > 0 ? { instructions: instructions.join('\n\n') } : {}),
  };
}

function toHistory(entries: ReadonlyArray<{ message: Record<string, unknown>; index: number; role: string }>): HistoryMessage[] {
  // A tool message carries only the call's id; its name is the call's, looked up here.
  const callNames = new Map<string, string>();
  return entries.map(({ message, index, role }): HistoryMessage => {
    switch (role) {
      case 'user':
        return { role: 'user', content: textOf(message.content, index) };
      case 'assistant': {
        const assistant = toAssistant(message, index);
        for (const call of assistant.toolCalls) callNames.set(call.id, call.name);
        return assistant;
      }
      case 'tool': {
        const id = message.tool_call_id;
        if (typeof id !== 'string' || id === '') throw new ParameterError('invalid_messages', `messages[${index}] is a tool message without its "tool_call_id".`, `messages[${index}].tool_call_id`);
        return { role: 'tool', toolCallId: id, name: callNames.get(id) ?? '', content: textOf(message.content, index) };
      }
      case 'function':
        throw new ParameterError('unsupported_content', `messages[${index}] has the deprecated role "function": send tool results as "tool" messages with a "tool_call_id".`, `messages[${index}].role`);
      default:
        throw new ParameterError('invalid_messages', `messages[${index}] has the role "${role}"; messages are system, developer, user, assistant or tool messages.`, `messages[${index}].role`);
    }
  });
}

function toAssistant(message: Record<string, unknown>, index: number): AssistantMessage {
  if (message.function_call != null) {
    throw new ParameterError('unsupported_content', `messages[${index}] has the deprecated "function_call": send "tool_calls" instead.`, `messages[${index}].function_call`);
  }
  const content = message.content == null ? null : textOf(message.content, index);
  const wireCalls = message.tool_calls ?? [];
  if (!Array.isArray(wireCalls)) throw new ParameterError('invalid_messages', `messages[${index}].tool_calls must be an array.`, `messages[${index}].tool_calls`);
  const toolCalls = wireCalls.map((call: unknown, position) => toToolCall(call, `messages[${index}].tool_calls[${position}]`));
  return { role: 'assistant', content, toolCalls };
}

function toToolCall(call: unknown, at: string): ToolCall {
  const wireFunction = isJsonObject(call) ? call.function : undefined;
  if (!isJsonObject(call) || (call.type !== undefined && call.type !== 'function') || !isJsonObject(wireFunction)) {
    throw new ParameterError('invalid_messages', `${at} must be {"id": "...", "type": "function", "function": {"name": "...", "arguments": "..."}}.`, at);
  }
  if (typeof call.id !== 'string' || call.id === '') throw new ParameterError('invalid_messages', `${at} has no "id".`, `${at}.id`);
  if (typeof wireFunction.name !== 'string' || wireFunction.name === '') throw new ParameterError('invalid_messages', `${at} has no function "name".`, `${at}.function.name`);
  const args = wireFunction.arguments;
  // Arguments are JSON text on the wire; a client that sends them as an object is read kindly.
  return { id: call.id, name: wireFunction.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
}

/** A message's text: a string, or its text parts (and an assistant's refusal parts) joined by blank lines. */
function textOf(content: unknown, index: number): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    throw new ParameterError('invalid_messages', `messages[${index}].content must be a string or an array of text parts.`, `messages[${index}].content`);
  }
  return content
    .map((part: unknown, position) => {
      const at = `messages[${index}].content[${position}]`;
      if (!isJsonObject(part)) throw new ParameterError('invalid_messages', `${at} must be a content part such as {"type": "text", "text": "..."}.`, at);
      if (part.type === 'text' && typeof part.text === 'string') return part.text;
      if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
      if (typeof part.type === 'string' && part.type !== 'text' && part.type !== 'refusal') {
        throw new ParameterError('unsupported_content', `${at} is a "${part.type}" part: the agent passes on text only, so send images, audio and files' contents as text, or leave them out.`, `${at}.type`);
      }
      throw new ParameterError('invalid_messages', `${at} must be {"type": "text", "text": "..."}.`, at);
    })
    .join('\n\n');
}
