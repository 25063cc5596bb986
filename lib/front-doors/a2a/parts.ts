import { Role, type Artifact, type Message, type Part } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';

/** The SDK's types list every field; these fill in the ones the door leaves empty. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

export function agentMessage(parts: Part[], ids: { taskId: string; contextId: string }): Message {
  return { messageId: randomUUID(), contextId: ids.contextId, taskId: ids.taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export function userMessage(text: string, ids: { taskId: string; contextId: string }): Message {
  return { ...agentMessage([textPart(text)], ids), role: Role.ROLE_USER };
}

/**
 * The turn's answer: one artifact, `reply`, with the reply's text, and for a structured answer
 * (docs/structured-answers.md) the answer parsed as a data part after it.
 */
export function replyArtifact(result: { reply: string; output?: unknown }): Artifact {
  const parts = [textPart(result.reply), ...(result.output === undefined ? [] : [dataPart(result.output)])];
  return { artifactId: 'reply', name: 'reply', description: 'The agent\'s answer', parts, metadata: undefined, extensions: [] };
}

/** A message's text parts, joined by blank lines. */
export function textOf(message: Message): string {
  return message.parts
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n\n')
    .trim();
}

/** The first data part's value, when the message has one. */
export function dataOf(message: Message): unknown {
  for (const part of message.parts) if (part.content?.$case === 'data') return part.content.value;
  return undefined;
}
