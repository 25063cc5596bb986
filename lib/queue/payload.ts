import { InputError } from '../core/errors.ts';
import { checkConversationId, checkDecisions, checkMessage, checkRequestId, type ApprovalDecision } from '../agent/turn/validate-input.ts';
import { APPROVAL_DECIDED, TURN_REQUESTED } from '../core/event-names.ts';
import { isEventBridgeEvent } from './aws-event-shapes.ts';
import { isJsonObject } from '../core/json.ts';
import { unknownFieldsText } from '../core/json.ts';
import { readTraceContext, type TraceContext } from '../core/trace-context.ts';
import type { ResponseFormat } from '../core/response-format.ts';
import { readResponseFormat } from '../agent/turn/read-response-format.ts';

/**
 * One question for one conversation, or the decisions on a paused turn's calls, sent asynchronously
 * (SQS, EventBridge or a direct invoke).
 */
export type TurnRequest = TurnRequestBase & ({ message: string; decisions?: undefined; responseFormat?: ResponseFormat } | { decisions: ApprovalDecision[]; message?: undefined; responseFormat?: undefined });

interface TurnRequestBase {
  conversationId: string;
  /**
   * Required here, unlike over HTTP: a queue redelivers, and the same requestId is what makes the
   * store replay the finished turn instead of running it a second time.
   */
  requestId: string;
  /**
   * Scopes the conversation to its owner, as the HTTP API does under an auth mode. Read here, but
   * taken only from senders the operator trusts (lib/queue/senders.ts).
   */
  owner?: string;
  /**
   * The sender's W3C trace context: `traceparent` (and `tracestate`) in the payload, or the SQS
   * message attributes of those names, which win (lib/queue/batch.ts).
   */
  trace?: TraceContext;
}

const FIELDS = ['conversationId', 'message', 'decisions', 'requestId', 'owner', 'traceparent', 'tracestate', 'responseFormat'];
const MAX_OWNER_CHARS = 512;
const SHAPE = '{"conversationId": string, "message": string, "requestId": string, "owner"?: string, "responseFormat"?: object} (or "decisions" instead of "message", to decide a paused turn\'s calls)';

/**
 * The turn request in an SQS message body, an EventBridge event, or a direct invoke's payload.
 * An EventBridge envelope (a rule delivering to Lambda or to SQS) is unwrapped to its `detail`.
 * Throws InputError naming the field to fix.
 */
export function readTurnRequest(value: unknown, maxMessageChars: number): TurnRequest {
  if (!isEventBridgeEvent(value)) return parseTurnRequest(value, maxMessageChars);
  if (value['detail-type'] !== TURN_REQUESTED && value['detail-type'] !== APPROVAL_DECIDED) {
    throw new InputError('unsupported_event', `Events with detail-type "${value['detail-type']}" are not handled here: send detail-type "${TURN_REQUESTED}" (or "${APPROVAL_DECIDED}") with detail ${SHAPE}.`);
  }
  return parseTurnRequest(value.detail, maxMessageChars, 'detail');
}

/** An SQS message body is JSON text; anything else can never succeed (a poison message). */
export function parseMessageBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new InputError('malformed_json', `The message body is not JSON: send ${SHAPE}, or an EventBridge "${TURN_REQUESTED}" event.`);
  }
}

/** Strict: unknown fields are refused, so a misspelt "ownr" never runs a conversation unscoped. */
function parseTurnRequest(value: unknown, maxMessageChars: number, where = 'payload'): TurnRequest {
  if (!isJsonObject(value)) {
    throw new InputError('invalid_payload', `The ${where} must be a JSON object ${SHAPE}, not ${kindOf(value)}.`);
  }
  const unknown = Object.keys(value).filter((key) => !FIELDS.includes(key));
  if (unknown.length > 0) {
    throw new InputError('unknown_field', `${unknownFieldsText(unknown)} in the ${where}: it takes ${SHAPE}.`);
  }
  const { conversationId, message, decisions, requestId, owner, responseFormat } = value;
  if (conversationId === undefined) {
    throw new InputError('missing_conversation_id', `The ${where} must have a "conversationId": the conversation this question belongs to (1 to 128 letters, digits, "_" or "-").`);
  }
  if (typeof conversationId !== 'string') {
    throw new InputError('invalid_conversation_id', `"conversationId" must be a string, not ${kindOf(conversationId)}.`);
  }
  checkConversationId(conversationId);
  if (requestId === undefined) {
    throw new InputError('missing_request_id', `The ${where} must have a "requestId": a unique id per question, so a redelivered message returns the stored turn instead of running it again.`);
  }
  checkRequestId(requestId);
  if (owner !== undefined && (typeof owner !== 'string' || owner === '' || owner.length > MAX_OWNER_CHARS)) {
    throw new InputError('invalid_owner', `"owner" must be a non-empty string of at most ${MAX_OWNER_CHARS} characters (the caller's identity that scopes the conversation), or left out.`);
  }
  const trace = readTraceContext(value.traceparent, value.tracestate);
  const base = { conversationId, requestId, ...(owner === undefined ? {} : { owner }), ...(trace ? { trace } : {}) };
  if (decisions !== undefined) {
    if (message !== undefined) throw new InputError('invalid_payload', `The ${where} has both "message" and "decisions": send a question or decisions, one per request.`);
    if (responseFormat !== undefined) throw new InputError('invalid_response_format', `"responseFormat" goes with a "message": a paused turn keeps the structured answer its question asked for.`);
    checkDecisions(decisions);
    return { ...base, decisions };
  }
  checkMessage(message, maxMessageChars);
  return { ...base, message, ...(responseFormat === undefined ? {} : { responseFormat: readResponseFormat(responseFormat) }) };
}

const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
