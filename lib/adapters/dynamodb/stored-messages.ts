/**
 * Messages as items before provider data stored them, read into today's shape. Until then wire
 * details sat on the message itself:
 *
 *   assistant.reasoning.field         → providerData.openai.reasoningField (the text stays `reasoning`)
 *                                       'reasoningContent' was the Bedrock adapter's label, never sent
 *   assistant.extraContent.bedrock    → providerData.bedrock (the Bedrock adapter's reasoning blocks)
 *   assistant.extraContent (the rest) → providerData.openai.extraContent (Gemini's extra_content)
 *   toolCall.extraContent             → the call's providerData.openai.extraContent
 *
 * so a stored conversation goes on sending exactly what it sent before. Messages in today's shape
 * pass through untouched; nothing is written back (items are rewritten only by their own turn).
 */
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { AssistantMessage, HistoryMessage, ProviderData, ToolCall } from '../../core/messages.ts';

/** The label the Bedrock adapter gave its reasoning; the OpenAI adapter never sent it. */
const BEDROCK_REASONING_LABEL = 'reasoningContent';

export function upgradeStoredMessages(messages: HistoryMessage[]): HistoryMessage[] {
  return messages.map((message) => (message.role === 'assistant' ? upgradeAssistant(message) : message));
}

type StoredAssistant = AssistantMessage & { extraContent?: unknown; reasoning?: { text: string; field?: unknown } };
type StoredCall = ToolCall & { extraContent?: unknown };

function upgradeAssistant(stored: StoredAssistant): AssistantMessage {
  const { extraContent, reasoning, toolCalls, ...rest } = stored;
  const field = reasoning?.field;
  if (extraContent === undefined && field === undefined && !toolCalls.some((call: StoredCall) => call.extraContent !== undefined)) return stored;

  const { bedrock, ...openAIExtraContent } = isJsonObject(extraContent) ? extraContent : {};
  const openai: JsonObject = {
    ...(typeof field === 'string' && field !== BEDROCK_REASONING_LABEL ? { reasoningField: field } : {}),
    ...(Object.keys(openAIExtraContent).length > 0 ? { extraContent: openAIExtraContent } : {}),
  };
  const providerData: ProviderData = {
    ...rest.providerData,
    ...(Object.keys(openai).length > 0 ? { openai } : {}),
    ...(isJsonObject(bedrock) ? { bedrock } : {}),
  };
  return {
    ...rest,
    toolCalls: toolCalls.map(upgradeCall),
    ...(reasoning === undefined ? {} : { reasoning: { text: reasoning.text } }),
    ...(Object.keys(providerData).length > 0 ? { providerData } : {}),
  };
}

function upgradeCall(stored: StoredCall): ToolCall {
  const { extraContent, ...call } = stored;
  if (!isJsonObject(extraContent)) return call;
  return { ...call, providerData: { ...call.providerData, openai: { extraContent } } };
}
