/**
 * Domain messages and tools → a Converse request's `system`, `messages` and `toolConfig`.
 *
 * Converse is stricter than Chat Completions, so the history is reshaped on the way out (never in
 * the stored conversation):
 *
 *   system messages                    → `system` text blocks (+ a cachePoint with promptCache)
 *   assistant(text, calls)             → assistant [reasoning…, text, toolUse…]
 *   tool, tool, user(images)           → one user [toolResult, toolResult, text, image…]: roles alternate
 *   empty text, empty messages         → left out (Converse refuses blank text blocks)
 *   ids Converse refuses               → re-encoded (tool-use-ids.ts)
 *   tool result that is a JSON object  → `json`, anything else → `text`
 *   tool blocks in a request that offers no tools (a summary call) → written as text, since
 *                                        Converse refuses toolUse blocks without a toolConfig
 */
import type { ContentBlock, ImageFormat, Message as ConverseMessage, SystemContentBlock, Tool, ToolConfiguration, ToolUseBlock } from '@aws-sdk/client-bedrock-runtime';
import { isJsonObject } from '../../core/json.ts';
import type { AssistantMessage, ImageData, Message, ToolMessage } from '../../core/messages.ts';
import type { ToolDefinition } from '../../core/ports/tools.ts';
import { bedrockDataOf, type StoredReasoning } from './provider-data.ts';
import { createToolUseIds, type ToolUseIds } from './tool-use-ids.ts';

export interface WireRequest {
  system: SystemContentBlock[];
  messages: ConverseMessage[];
  toolConfig?: ToolConfiguration;
  ids: ToolUseIds;
}

interface WireOptions {
  /** cachePoint blocks after the system prompt and after the tools (model.promptCache). */
  promptCache: boolean;
}

/** JSON as the SDK types a document (tool inputs, schemas, json results). */
type Document = NonNullable<ToolUseBlock['input']>;
export const asDocument = (value: unknown): Document => value as Document;

const CACHE_POINT = { cachePoint: { type: 'default' as const } };

export function toWireRequest(messages: readonly Message[], tools: readonly ToolDefinition[], options: WireOptions): WireRequest {
  const ids = createToolUseIds();
  const system: SystemContentBlock[] = messages.flatMap((message) => (message.role === 'system' && message.content.trim() !== '' ? [{ text: message.content }] : []));
  if (options.promptCache && system.length > 0) system.push(CACHE_POINT);

  const conversation = messages.filter((message) => message.role !== 'system');
  const turnStart = currentTurnStart(conversation);
  const toolsOffered = tools.length > 0;
  const wire: ConverseMessage[] = [];
  conversation.forEach((message, index) => {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content =
      message.role === 'assistant'
        ? assistantBlocks(message, ids, { replayReasoning: index > turnStart, toolsOffered })
        : message.role === 'tool'
          ? [toolResultBlock(message, ids, toolsOffered)]
          : [...textBlocks(message.content), ...(message.images ?? []).flatMap(imageBlock)];
    if (content.length === 0) return;
    const previous = wire.at(-1);
    if (previous?.role === role) previous.content = [...(previous.content ?? []), ...content];
    else wire.push({ role, content });
  });

  return {
    system,
    messages: wire,
    ...(toolsOffered ? { toolConfig: { tools: [...tools.map(toolSpec), ...(options.promptCache ? [CACHE_POINT] : [])] } } : {}),
    ids,
  };
}

/**
 * Where the turn being answered began: its user question (a user message that does not follow tool
 * results, which would be a round's images). Reasoning is sent back for this turn's replies only,
 * which is what Bedrock requires; earlier turns' reasoning is ignored by the models anyway.
 */
function currentTurnStart(conversation: readonly Message[]): number {
  for (let index = conversation.length - 1; index >= 0; index -= 1) {
    if (conversation[index]?.role === 'user' && conversation[index - 1]?.role !== 'tool') return index;
  }
  return -1;
}

function assistantBlocks(message: AssistantMessage, ids: ToolUseIds, context: { replayReasoning: boolean; toolsOffered: boolean }): ContentBlock[] {
  const reasoning = context.replayReasoning ? (bedrockDataOf(message).reasoning ?? []).map(reasoningBlock) : [];
  const calls = message.toolCalls.map((call): ContentBlock => {
    const input = replayableInput(call.arguments);
    if (!context.toolsOffered) return { text: `[called the tool ${call.name} with ${JSON.stringify(input)}]` };
    return { toolUse: { toolUseId: ids.forCall(call.id), name: call.name, input: asDocument(input) } };
  });
  return [...reasoning, ...textBlocks(message.content ?? ''), ...calls];
}

function reasoningBlock(stored: StoredReasoning): ContentBlock {
  if ('redacted' in stored) return { reasoningContent: { redactedContent: Buffer.from(stored.redacted, 'base64') } };
  return { reasoningContent: { reasoningText: { text: stored.text, ...(stored.signature === undefined ? {} : { signature: stored.signature }) } } };
}

function toolResultBlock(message: ToolMessage, ids: ToolUseIds, toolsOffered: boolean): ContentBlock {
  const text = message.content.trim() === '' ? '(the tool returned nothing)' : message.content;
  if (!toolsOffered) return { text: `[result of the tool ${message.name}: ${text}]` };
  const json = parseObject(message.content);
  return { toolResult: { toolUseId: ids.forResult(message.toolCallId), content: [json === undefined ? { text } : { json: asDocument(json) }] } };
}

const textBlocks = (text: string): ContentBlock[] => (text.trim() === '' ? [] : [{ text }]);

const IMAGE_FORMATS: Record<string, ImageFormat> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

function imageBlock(image: ImageData): ContentBlock[] {
  const format = IMAGE_FORMATS[image.mimeType.toLowerCase()];
  if (format === undefined) return [{ text: `[an image of type ${image.mimeType}, which the model cannot be shown]` }];
  return [{ image: { format, source: { bytes: Buffer.from(image.data, 'base64') } } }];
}

function toolSpec(tool: ToolDefinition): Tool {
  return {
    toolSpec: {
      name: tool.name,
      // Converse refuses an empty description; a tool without one goes without the field.
      ...(tool.description.trim() === '' ? {} : { description: tool.description }),
      inputSchema: { json: asDocument(tool.parameters) },
    },
  };
}

/**
 * The arguments as an object, since Converse carries `input` as a JSON document, not as text. What
 * is not a JSON object (a model's broken output) is wrapped, so the history stays sendable.
 */
function replayableInput(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  return parseObject(raw) ?? { invalid_json: raw };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
