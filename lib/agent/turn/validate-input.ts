import { InputError } from '../../core/errors.ts';
import { isJsonObject, unknownFieldsText } from '../../core/json.ts';
import { historyViolations } from '../../core/history.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { ElicitationResult } from '../../core/ports/tools.ts';

/** Conversation ids are chosen by callers too, so they are checked: safe in URLs, keys and logs. */
const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
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

/**
 * A person's decision on one call waiting for them: `approved` for a call (or its sampling request)
 * waiting for approval; `answer` for a call whose MCP server asked a question (`input_required`).
 */
export interface ApprovalDecision {
  toolCallId: string;
  approved?: boolean;
  /** Told to the model when the call is declined. */
  reason?: string;
  /** The answer to the server's question, as MCP's elicitation result carries it. */
  answer?: ElicitationResult;
}

const DECISION_FIELDS = ['toolCallId', 'approved', 'reason', 'answer'];
const ANSWER_FIELDS = ['action', 'content'];
const ANSWER_ACTIONS = ['accept', 'decline', 'cancel'];
const MAX_REASON_CHARS = 2_000;
const DECISIONS_SHAPE = '{"decisions": [{"toolCallId": "...", "approved": true | false, "reason"?: "..."}]} (or, for a question a tool asked, {"toolCallId": "...", "answer": {"action": "accept", "content": {...}}})';

/** `decisions` as a caller sent them: a non-empty list, one decision per call id. */
export function checkDecisions(value: unknown): asserts value is ApprovalDecision[] {
  if (value === undefined) {
    throw new InputError('invalid_decisions', `The body must have "decisions": ${DECISIONS_SHAPE}, one entry per call waiting for a decision.`);
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw new InputError('invalid_decisions', `"decisions" must be a non-empty array: ${DECISIONS_SHAPE}.`);
  }
  const seen = new Set<string>();
  value.forEach((decision: unknown, index) => {
    const at = `decisions[${index}]`;
    if (!isJsonObject(decision)) throw new InputError('invalid_decisions', `${at} must be an object like {"toolCallId": "...", "approved": true}.`);
    const unknown = Object.keys(decision).filter((key) => !DECISION_FIELDS.includes(key));
    if (unknown.length > 0) throw new InputError('unknown_field', `${unknownFieldsText(unknown)} in ${at}: a decision takes "toolCallId", "approved" and optionally "reason", or "toolCallId" and "answer".`);
    if (typeof decision.toolCallId !== 'string' || decision.toolCallId === '') {
      throw new InputError('invalid_decisions', `${at}.toolCallId must be the id of a call waiting for a decision (a non-empty string).`);
    }
    if ((decision.approved === undefined) === (decision.answer === undefined)) {
      throw new InputError('invalid_decisions', `${at} must have either "approved" (a call waiting for approval) or "answer" (a question a tool asked), not ${decision.approved === undefined ? 'neither' : 'both'}.`);
    }
    if (decision.approved !== undefined && typeof decision.approved !== 'boolean') throw new InputError('invalid_decisions', `${at}.approved must be true or false.`);
    if (decision.answer !== undefined) checkAnswer(decision.answer, `${at}.answer`);
    if (decision.reason !== undefined && (typeof decision.reason !== 'string' || decision.reason.length > MAX_REASON_CHARS)) {
      throw new InputError('invalid_decisions', `${at}.reason must be a string of at most ${MAX_REASON_CHARS} characters.`);
    }
    if (seen.has(decision.toolCallId)) throw new InputError('invalid_decisions', `${at} decides call ${decision.toolCallId} a second time; decide each call once.`);
    seen.add(decision.toolCallId);
  });
}

/**
 * An answer's shape: an action, and with `accept` the form's values (strings, numbers, booleans,
 * lists of strings). Whether they fit the question's schema is checked against the stored question.
 */
function checkAnswer(answer: unknown, at: string): asserts answer is ElicitationResult {
  if (!isJsonObject(answer)) throw new InputError('invalid_answer', `${at} must be an object like {"action": "accept", "content": {...}}, {"action": "decline"} or {"action": "cancel"}.`);
  const unknown = Object.keys(answer).filter((key) => !ANSWER_FIELDS.includes(key));
  if (unknown.length > 0) throw new InputError('unknown_field', `${unknownFieldsText(unknown)} in ${at}: an answer takes "action" and, to accept, "content".`);
  if (typeof answer.action !== 'string' || !ANSWER_ACTIONS.includes(answer.action)) {
    throw new InputError('invalid_answer', `${at}.action must be "accept", "decline" or "cancel".`);
  }
  if (answer.action !== 'accept') {
    if (answer.content !== undefined) throw new InputError('invalid_answer', `${at}.content goes only with "action": "accept".`);
    return;
  }
  // A URL-mode question (the user visited a page) is accepted with no values: an empty form's.
  if (answer.content === undefined) answer.content = {};
  if (!isJsonObject(answer.content)) throw new InputError('invalid_answer', `${at}.content must be an object of the form's values, e.g. {"name": "Ada"}.`);
  for (const [field, item] of Object.entries(answer.content)) {
    const fits = ['string', 'number', 'boolean'].includes(typeof item) || (Array.isArray(item) && item.every((entry) => typeof entry === 'string'));
    if (!fits) throw new InputError('invalid_answer', `${at}.content.${field} must be a string, a number, a boolean or a list of strings.`);
  }
}

const HISTORY_ROLES = new Set(['user', 'assistant', 'tool']);

/** A stateless caller's history: only for a new conversation, and only what a model accepts. */
export function checkEarlierMessages(messages: readonly HistoryMessage[], conversationId: string | undefined): void {
  if (conversationId !== undefined) {
    throw new InputError('invalid_messages', 'Earlier messages start a new conversation; a conversation that exists has its own history.');
  }
  const wrong = messages.findIndex((message) => !HISTORY_ROLES.has(message.role));
  if (wrong >= 0) throw new InputError('invalid_messages', `Message ${wrong} has the role "${messages[wrong]!.role}"; earlier messages are user, assistant and tool messages.`);
  const violations = historyViolations(messages);
  if (violations.length > 0) throw new InputError('invalid_messages', `The earlier messages break the rule every model enforces (each tool call answered by one tool message right after it): ${violations.join('; ')}.`);
}
