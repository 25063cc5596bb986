import { InputError } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';
import type { ResponseFormat } from '../../core/response-format.ts';
import { readResponseFormat } from '../../agent/turn/read-response-format.ts';
import type { TurnResult } from '../../core/turn.ts';
import type { Agent } from '../../agent/agent-api.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import { checkConversationId, REQUEST_ID_PATTERN } from '../../agent/turn/validate-input.ts';
import { readJsonObject } from '../../http/body.ts';
import type { HttpRequest } from '../../http/types.ts';
import { ParameterError } from './errors.ts';
import { CONVERSATION_HEADER, IDEMPOTENCY_HEADER } from './headers.ts';
import { readChatMessages } from './messages.ts';
import { traceOf } from '../../http/trace-of.ts';
import { callerTokenOf } from '../../http/caller-token-of.ts';

/** A POST /v1/chat/completions request, read and checked before any turn starts. */
export interface ChatCompletionCall {
  stream: boolean;
  /** `response_format` asked for JSON: the message is the answer alone, never the text of earlier rounds. */
  structured: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage, and `usage: null` on the others. */
  includeUsage: boolean;
  /** The stored conversation the request continues, when it names one. */
  conversationId?: string;
  run(agent: Pick<Agent, 'ask'>, onEvent?: (event: LoopEvent) => void): Promise<TurnResult>;
}

interface ChatRequestOptions {
  modelId: string;
  maxBodyBytes: number;
}

/**
 * Parameters that would change what the answer means, which the agent cannot honour: refused, so a
 * client never mistakes the agent's answer for what it asked. Every other parameter (temperature,
 * top_p, max_tokens, stop, seed, user, logprobs, tool_choice, ...) is accepted and ignored: the
 * agent's model settings are agent.yml's.
 */
const REFUSED: Array<{ param: string; refused: (value: unknown) => boolean; why: string }> = [
  { param: 'tools', refused: nonEmptyList, why: 'the agent\'s tools are its MCP servers\', run by the service; a client cannot add its own' },
  { param: 'functions', refused: nonEmptyList, why: 'the agent\'s tools are its MCP servers\', run by the service; a client cannot add its own' },
  { param: 'n', refused: (value) => value != null && value !== 1, why: 'the agent gives one answer per request' },
  { param: 'audio', refused: (value) => value != null, why: 'the agent answers in text only' },
  { param: 'modalities', refused: (value) => Array.isArray(value) && value.some((modality) => modality !== 'text'), why: 'the agent answers in text only' },
];

export function readChatCompletionCall(request: HttpRequest, options: ChatRequestOptions): ChatCompletionCall {
  const body = readJsonObject(request, options.maxBodyBytes);
  if (typeof body.model !== 'string' || body.model === '') {
    throw new ParameterError('invalid_body', `The body must name the model: "model": "${options.modelId}".`, 'model');
  }
  if (body.model !== options.modelId) {
    throw new ParameterError('model_not_found', `The model "${body.model}" does not exist here: this service answers as "${options.modelId}" (GET /v1/models).`, 'model');
  }
  for (const { param, refused, why } of REFUSED) {
    if (refused(body[param])) throw new ParameterError('unsupported_parameter', `"${param}" is not supported: ${why}. Leave it out.`, param);
  }
  const stream = readOptionalBoolean(body.stream, 'stream') ?? false;
  const streamOptions = body.stream_options;
  if (streamOptions != null && !isJsonObject(streamOptions)) throw new ParameterError('invalid_body', '"stream_options" must be an object such as {"include_usage": true}.', 'stream_options');
  const includeUsage = readOptionalBoolean(streamOptions?.include_usage, 'stream_options.include_usage') ?? false;

  const conversationId = namedConversation(request, body.metadata);
  const requestId = request.headers[IDEMPOTENCY_HEADER] || undefined;
  if (requestId !== undefined && !REQUEST_ID_PATTERN.test(requestId)) {
    throw new ParameterError('invalid_request_id', 'The Idempotency-Key header must be 1 to 128 letters, digits or "_", ".", ":", "-".', 'Idempotency-Key');
  }
  const { question, earlierMessages, instructions } = readChatMessages(body.messages, { earlier: conversationId === undefined });
  const responseFormat = readChatResponseFormat(body.response_format);
  const input = {
    message: question,
    ...(responseFormat ? { responseFormat } : {}),
    ...(conversationId === undefined ? { earlierMessages } : { conversationId }),
    ...(instructions === undefined ? {} : { instructions }),
    ...(requestId === undefined ? {} : { requestId }),
    ...(request.owner ? { owner: request.owner } : {}),
    ...(request.claims ? { claims: request.claims } : {}),
    ...(request.deadlineAt === undefined ? {} : { deadlineAt: request.deadlineAt }),
    ...traceOf(request),
    ...callerTokenOf(request),
  };
  return {
    stream,
    structured: responseFormat !== undefined,
    includeUsage,
    ...(conversationId === undefined ? {} : { conversationId }),
    run: (agent, onEvent) => agent.ask({ ...input, ...(onEvent ? { onEvent } : {}) }),
  };
}

/** The conversation named by the X-Conversation-Id header or `metadata.conversation_id` (which must agree). */
function namedConversation(request: HttpRequest, metadata: unknown): string | undefined {
  if (metadata != null && !isJsonObject(metadata)) throw new ParameterError('invalid_body', '"metadata" must be an object of strings, such as {"conversation_id": "..."}.', 'metadata');
  const fromMetadata = metadata?.conversation_id;
  if (fromMetadata !== undefined && typeof fromMetadata !== 'string') {
    throw new ParameterError('invalid_conversation_id', '"metadata.conversation_id" must be a string.', 'metadata.conversation_id');
  }
  // An empty header is a client template with nothing filled in: no conversation named.
  const fromHeader = request.headers[CONVERSATION_HEADER] || undefined;
  if (fromHeader !== undefined && fromMetadata !== undefined && fromHeader !== fromMetadata) {
    throw new ParameterError('invalid_conversation_id', `The X-Conversation-Id header ("${fromHeader}") and metadata.conversation_id ("${fromMetadata}") name different conversations; send one.`, 'metadata.conversation_id');
  }
  const named = fromHeader ?? fromMetadata;
  if (named === undefined) return undefined;
  try {
    checkConversationId(named);
  } catch (error) {
    throw new ParameterError('invalid_conversation_id', (error as Error).message, fromHeader !== undefined ? 'X-Conversation-Id' : 'metadata.conversation_id');
  }
  return named;
}

/**
 * `response_format`: `text` (or none) is the agent's usual answer; `json_schema` a structured answer
 * (docs/structured-answers.md); `json_object`, any JSON object.
 */
function readChatResponseFormat(value: unknown): ResponseFormat | undefined {
  if (value == null || (isJsonObject(value) && value.type === 'text')) return undefined;
  if (isJsonObject(value) && value.type === 'json_object') return { type: 'json_schema', name: 'json_object', schema: { type: 'object' } };
  if (!isJsonObject(value) || value.type !== 'json_schema') {
    throw new ParameterError('invalid_response_format', '"response_format" must be {"type": "text"}, {"type": "json_object"} or {"type": "json_schema", "json_schema": {"name", "schema", "strict"?}}.', 'response_format');
  }
  const jsonSchema = value.json_schema;
  try {
    if (!isJsonObject(jsonSchema)) throw new InputError('invalid_response_format', '"response_format.json_schema" must be an object with "name" and "schema".');
    const { description: _description, ...format } = jsonSchema;
    return readResponseFormat({ type: 'json_schema', ...format }, 'response_format.json_schema');
  } catch (error) {
    if (error instanceof InputError) throw new ParameterError('invalid_response_format', error.message, 'response_format');
    throw error;
  }
}

function readOptionalBoolean(value: unknown, param: string): boolean | undefined {
  if (value == null) return undefined;
  if (typeof value !== 'boolean') throw new ParameterError('invalid_body', `"${param}" must be true or false.`, param);
  return value;
}

function nonEmptyList(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : value != null;
}
