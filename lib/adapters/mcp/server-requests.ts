/**
 * What the service offers a server as an MCP client, and how it answers the server's requests:
 *
 *   roots       declared only when the server's entry lists roots (a server such as
 *               server-filesystem replaces its own directories with them, so an empty list
 *               declared by default would leave it with none); roots/list answers them.
 *   elicitation declared (form mode) unless the policy declines anyway. `defaults` accepts with
 *               the schema's defaults when every required field has one; `ask` hands the request
 *               to `onElicitation`. URL mode (MCP 2025-11-25: "visit this page") is declared only
 *               under `ask`: no default can stand for a person opening a page.
 *   sampling    declared only with `sampling: true` (or `ask`) and an `onSampling` to answer it.
 *
 * A capability not declared is answered by the SDK with "method not found", as the spec wants.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type ListRootsResult,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { URL_ELICITATION_FORM, type ElicitationRequest, type ElicitationResult, type SamplingRequest, type ServerRequestContext } from '../../core/ports/tools.ts';
import type { JsonObject } from '../../core/json.ts';
import { renderBlock } from './content.ts';
import type { McpGatewayOptions, McpServerSpec } from './types.ts';

interface ServerRequestOptions {
  spec: McpServerSpec;
  /** tools.elicitation, for a server without its own policy. */
  defaultElicitation: 'decline' | 'defaults' | 'ask' | undefined;
  onElicitation: McpGatewayOptions['onElicitation'];
  onSampling: McpGatewayOptions['onSampling'];
  logger: Logger;
  /** The tool calls running on this server now (what the request is likely about). */
  context(signal: AbortSignal): ServerRequestContext;
}

type Policy = 'decline' | 'defaults' | 'ask';

function elicitationPolicyOf(options: Pick<ServerRequestOptions, 'spec' | 'defaultElicitation' | 'onElicitation'>): Policy {
  const policy = options.spec.elicitation ?? options.defaultElicitation ?? 'decline';
  // Asking nobody is declining: then the capability is not declared at all.
  return policy === 'ask' && !options.onElicitation ? 'decline' : policy;
}

export function clientCapabilities(options: ServerRequestOptions): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (options.spec.roots !== undefined) capabilities.roots = {};
  const elicitation = elicitationPolicyOf(options);
  if (elicitation !== 'decline') capabilities.elicitation = elicitation === 'ask' ? { form: {}, url: {} } : { form: {} };
  // `ask` too: whether a person approves first is the agent's business, not the protocol's.
  if ((options.spec.sampling === true || options.spec.sampling === 'ask') && options.onSampling) capabilities.sampling = {};
  return capabilities;
}

/**
 * How this client answers each kind of server request it declared. The stateful era delivers them
 * as JSON-RPC requests (registerAnswers); the stateless era embeds them in an `input_required`
 * result (stateless/input-required.ts). Both use these same answers.
 */
export interface ServerRequestAnswers {
  listRoots?(): ListRootsResult;
  elicit?(params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
  sample?(params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult>;
}

export function serverRequestAnswers(capabilities: ClientCapabilities, options: ServerRequestOptions): ServerRequestAnswers {
  const { spec, logger } = options;
  const answers: ServerRequestAnswers = {};
  if (capabilities.roots) {
    const roots = (spec.roots ?? []).map((uri) => ({ uri, name: nameOfRoot(uri) }));
    answers.listRoots = () => ({ roots });
  }
  if (capabilities.elicitation) {
    const policy = elicitationPolicyOf(options);
    answers.elicit = async (params, signal): Promise<ElicitResult> => {
      const visit = params.mode === 'url' ? params : undefined;
      if (visit && policy !== 'ask') return { action: 'decline' };
      if (!visit && !('requestedSchema' in params)) return { action: 'decline' };
      const request: ElicitationRequest = params.mode === 'url'
        ? { message: params.message, requestedSchema: URL_ELICITATION_FORM, mode: 'url', url: params.url, elicitationId: params.elicitationId }
        : { message: params.message, requestedSchema: params.requestedSchema as JsonObject };
      const requestedSchema = request.requestedSchema;
      let result: ElicitationResult;
      if (policy === 'defaults') {
        result = acceptDefaults(requestedSchema);
      } else {
        try {
          result = await options.onElicitation!(request, options.context(signal));
        } catch (error) {
          logger.warn('mcp elicitation failed', { server: spec.name, error: errorMessage(error) });
          result = { action: 'cancel' };
        }
      }
      logger.info('mcp elicitation answered', { server: spec.name, policy, action: result.action, ...(visit ? { mode: 'url' } : {}) });
      // A URL-mode accept carries no values: the user did what the page asked.
      return visit && result.action === 'accept' ? { action: 'accept' } : result;
    };
  }
  if (capabilities.sampling) {
    answers.sample = async (params, signal): Promise<CreateMessageResult> => {
      if (params.tools !== undefined) {
        throw new McpError(ErrorCode.InvalidParams, 'this client does not offer tools in sampling requests');
      }
      const sampling: SamplingRequest = {
        messages: params.messages.map((message) => ({ role: message.role, text: samplingText(message.content) })),
        maxTokens: params.maxTokens,
        ...(params.systemPrompt === undefined ? {} : { systemPrompt: params.systemPrompt }),
        ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
        ...(params.stopSequences === undefined ? {} : { stopSequences: params.stopSequences }),
      };
      try {
        const answer = await options.onSampling!(sampling, options.context(signal));
        logger.info('mcp sampling answered', { server: spec.name, model: answer.model });
        return {
          role: 'assistant',
          content: { type: 'text', text: answer.text },
          model: answer.model,
          ...(answer.stopReason === undefined ? {} : { stopReason: answer.stopReason }),
        };
      } catch (error) {
        logger.warn('mcp sampling failed', { server: spec.name, error: errorMessage(error) });
        throw new McpError(ErrorCode.InternalError, `sampling failed: ${errorMessage(error)}`);
      }
    };
  }
  return answers;
}

/** The stateful era: the answers as request handlers (the SDK refuses handlers for undeclared capabilities). */
export function registerAnswers(client: Client, answers: ServerRequestAnswers): void {
  const { listRoots, elicit, sample } = answers;
  if (listRoots) client.setRequestHandler(ListRootsRequestSchema, () => listRoots());
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request, extra) => elicit(request.params, extra.signal));
  if (sample) client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => sample(request.params, extra.signal));
}

/**
 * The `defaults` policy: the schema's own defaults are what a person accepting the form unchanged
 * would send (SEP-1034). Every field with a default is filled; the answer is accept only when that
 * leaves no required field empty, otherwise decline: nothing is invented.
 */
export function acceptDefaults(requestedSchema: JsonObject): ElicitationResult {
  const properties = (requestedSchema.properties ?? {}) as Record<string, { default?: unknown }>;
  const content: Extract<ElicitationResult, { action: 'accept' }>['content'] = {};
  for (const [field, property] of Object.entries(properties)) {
    const value = property?.default;
    if (isElicitationValue(value)) content[field] = value;
  }
  const required = Array.isArray(requestedSchema.required) ? (requestedSchema.required as unknown[]) : [];
  const missing = required.filter((field) => typeof field !== 'string' || !(field in content));
  return missing.length === 0 ? { action: 'accept', content } : { action: 'decline' };
}

function isElicitationValue(value: unknown): value is string | number | boolean | string[] {
  if (Array.isArray(value)) return value.every((item) => typeof item === 'string');
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** The model reads text; images and audio in a sampling request are described (content.ts). */
function samplingText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block) => (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text'
      ? String((block as { text?: unknown }).text ?? '')
      : renderBlock(block as Parameters<typeof renderBlock>[0])))
    .join('\n');
}

function nameOfRoot(uri: string): string {
  const path = uri.replace(/\/+$/, '');
  return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) || uri;
}
