/**
 * Reading the Chat Completions requests a model received, as they crossed the wire: their system
 * prompt, question, tools and messages, converted back to domain messages so the history invariant
 * can be checked with the service's own rule (lib/core/history.ts).
 */
import { historyViolations } from '../../lib/core/history.ts';
import type { Message } from '../../lib/core/messages.ts';
import type { ChatRequestBody, ScriptedOpenAIServer } from './scripted-openai-server.ts';

export interface WireToolCall {
  id: string;
  function: { name: string; arguments: string };
}

export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface WireTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The completion requests the server received, in the order they arrived. */
export const completionBodies = (model: ScriptedOpenAIServer): ChatRequestBody[] =>
  model.requests.filter((request) => request.method === 'POST' && request.path === '/v1/chat/completions').map((request) => request.body as ChatRequestBody);

export const wireMessages = (body: ChatRequestBody) => body.messages as unknown as WireMessage[];
export const systemPromptOf = (body: ChatRequestBody) => wireMessages(body)[0]?.role === 'system' ? (wireMessages(body)[0]!.content ?? '') : '';
export const wireTools = (body: ChatRequestBody) => (body.tools ?? []) as unknown as WireTool[];
export const toolNames = (body: ChatRequestBody) => wireTools(body).map((tool) => tool.function.name);
/** The last user message: the question (or, in plan-execute, the phase's request). */
export const questionOf = (body: ChatRequestBody) => [...wireMessages(body)].reverse().find((message) => message.role === 'user')?.content ?? '';
export const toolAnswers = (body: ChatRequestBody) => wireMessages(body).filter((message) => message.role === 'tool');
/** The messages after the last user message: what the model did since it was asked. */
export const sinceQuestion = (body: ChatRequestBody) => {
  const messages = wireMessages(body);
  const asked = messages.map((message) => message.role).lastIndexOf('user');
  return messages.slice(asked + 1);
};
/** Whether the model already called this tool since it was asked (earlier turns do not count). */
export const answered = (body: ChatRequestBody, name: string) => sinceQuestion(body).some((message) => message.role === 'tool' && message.name === name);

/** The wire messages as domain messages: the inverse of lib/adapters/openai/wire.ts for what it sends. */
export function fromWire(messages: readonly WireMessage[]): Message[] {
  return messages.map((message): Message => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content ?? '' };
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content,
          toolCalls: (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
        };
      case 'tool':
        return { role: 'tool', toolCallId: message.tool_call_id ?? '', name: message.name ?? '', content: message.content ?? '' };
    }
  });
}

/** What breaks the history invariant in one request, as the service's own rule finds it. */
export const wireViolations = (body: ChatRequestBody) => historyViolations(fromWire(wireMessages(body)));
