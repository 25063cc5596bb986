import type { McpServerDoorSettings } from './settings.ts';

/**
 * The tool's arguments as JSON Schema: the question, and the conversation to continue. The
 * descriptions come from agent.yml, since they are what the calling model reads to decide when to
 * ask this agent.
 */
export function askInputSchema(settings: McpServerDoorSettings): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      message: { type: 'string', minLength: 1, description: settings.messageDescription },
      conversationId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$', description: settings.conversationIdDescription },
      responseFormat: RESPONSE_FORMAT_SCHEMA,
    },
    required: ['message'],
    additionalProperties: false,
  };
}

/**
 * A structured answer (docs/structured-answers.md), the native API's own field: kept loose here so
 * a bad one reaches the agent's own check and comes back as its invalid_response_format message.
 */
const RESPONSE_FORMAT_SCHEMA = {
  type: 'object',
  description: 'Optional: ask for the answer as JSON that validates against a JSON Schema; the parsed answer is then structuredContent.output.',
  properties: { type: { const: 'json_schema' }, name: { type: 'string' }, schema: { type: 'object' }, strict: { type: 'boolean' } },
  required: ['type', 'name', 'schema'],
};

const toolCall = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' }, arguments: {}, ok: { type: 'boolean' }, durationMs: { type: 'number' } },
  required: ['id', 'name', 'ok'],
};

const waitingCall = {
  type: 'object',
  properties: { toolCallId: { type: 'string' }, name: { type: 'string' }, server: { type: 'string' }, arguments: {} },
  required: ['toolCallId', 'name', 'server'],
};

/**
 * The turn result (lib/core/turn.ts TurnResult), the tool's `structuredContent`: the fields a caller
 * decides on are named; the optional ones a configuration adds (todos, plan, budget) pass as they are.
 */
export const TURN_RESULT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    conversationId: { type: 'string', description: 'Pass it back as conversationId to continue this conversation.' },
    turn: { type: 'integer', minimum: 1 },
    reply: { type: 'string' },
    stopReason: {
      type: 'string',
      enum: ['completed', 'max_rounds', 'deadline', 'error', 'approval_required', 'input_required', 'interrupted', 'budget_exhausted', 'max_tokens', 'content_filtered'],
    },
    rounds: { type: 'integer', minimum: 0 },
    toolCalls: { type: 'array', items: toolCall },
    usage: { type: 'object', properties: { promptTokens: { type: 'number' }, completionTokens: { type: 'number' } }, required: ['promptTokens', 'completionTokens'] },
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
    pendingApprovals: { type: 'array', items: waitingCall, description: 'With approval_required: the calls that wait for a decision.' },
    output: { description: 'With a responseFormat, when the answer validated: the answer parsed.' },
    pendingElicitations: { type: 'array', items: waitingCall, description: 'With input_required: the questions a tool asked.' },
  },
  required: ['conversationId', 'turn', 'reply', 'stopReason', 'rounds', 'toolCalls', 'usage'],
};
