import { InputError } from '../core/errors.ts';

/** Conversation ids are chosen by callers too, so they are checked: safe in URLs, keys and logs. */
export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

export function checkConversationId(value: string): void {
  if (!CONVERSATION_ID_PATTERN.test(value)) {
    throw new InputError('invalid_conversation_id', 'conversationId must be 1 to 128 characters of letters, digits, "_" or "-".');
  }
}

export function checkRequestId(value: unknown): asserts value is string | undefined {
  if (value === undefined) return;
  if (typeof value !== 'string' || !REQUEST_ID_PATTERN.test(value)) {
    throw new InputError('invalid_request_id', 'requestId must be a string of 1 to 128 letters, digits or "_", ".", ":", "-".');
  }
}

export function checkMessage(value: unknown, maxChars: number): asserts value is string {
  if (value === undefined) {
    throw new InputError('missing_message', 'The body must have a "message" field with the question as a string, e.g. {"message": "What is the weather in Shanghai?"}.');
  }
  if (typeof value !== 'string') {
    throw new InputError('invalid_message', `"message" must be a string, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`);
  }
  if (value.trim() === '') {
    throw new InputError('empty_message', '"message" is empty: send the question as a non-empty string.');
  }
  if (value.length > maxChars) {
    throw new InputError('message_too_long', `"message" has ${value.length} characters; the limit is ${maxChars}. Shorten it or raise http.maxMessageChars in agent.yml.`);
  }
}
