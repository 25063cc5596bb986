/**
 * A Converse response (or a ConverseStream accumulated into one, stream-accumulator.ts) → the
 * normalized `ModelReply`. Both paths end here, so a streamed reply equals the unstreamed one.
 *
 * Stop reasons, as the turn sees them (the loop decides on tool calls, never on a stop reason):
 *
 *   end_turn, stop_sequence         an answer
 *   tool_use                        calls to run
 *   max_tokens                      what was written; a call cut off has arguments that are not
 *                                   JSON, which the loop answers as a failed call the model can retry
 *   guardrail_intervened            the guardrail's own words (its blocked message), or a sentence
 *   content_filtered                saying it intervened, and no calls: blocked output never acts;
 *                                   the stop reason is kept with the message (provider-data.ts)
 *   model_context_window_exceeded   as max_tokens
 */
import type { ContentBlock, ConverseResponse, TokenUsage as ConverseUsage } from '@aws-sdk/client-bedrock-runtime';
import { ModelError } from '../../core/errors.ts';
import type { TokenUsage, ToolCall } from '../../core/messages.ts';
import type { ModelReply } from '../../core/ports/model.ts';
import { withBedrockData, type StoredReasoning } from './provider-data.ts';
import type { ToolUseIds } from './tool-use-ids.ts';

/** The fields of a Converse response this adapter reads (a stream accumulates the same). */
export type ConverseResult = Pick<ConverseResponse, 'output' | 'stopReason' | 'usage'>;

/** Token counts with the prompt cache's share; budgets see cache reads and writes as prompt tokens. */
interface BedrockTokenUsage extends TokenUsage {
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

const INTERVENED: Record<string, string> = {
  guardrail_intervened: 'The configured Amazon Bedrock guardrail blocked this exchange.',
  content_filtered: "The model's content filter withheld this reply.",
};

/** Stop reasons whose text was cut at a limit: the output's, or the context window's. */
const CUT_SHORT = new Set(['max_tokens', 'model_context_window_exceeded']);

export function toReply(result: ConverseResult, ids: ToolUseIds): ModelReply {
  const message = result.output?.message;
  if (message === undefined) {
    throw new ModelError('model_bad_response', `Bedrock answered without a message (stop reason ${result.stopReason ?? 'none'}).`);
  }
  const blocks: ContentBlock[] = message.content ?? [];
  const stopReason = result.stopReason ?? 'end_turn';
  const blocked = INTERVENED[stopReason];
  const text = blocks.flatMap((block) => (typeof block.text === 'string' ? [block.text] : [])).join('');
  const reasoning = blocks.flatMap((block) => storedReasoning(block));
  const reasoningText = reasoning.flatMap((piece) => ('text' in piece ? [piece.text] : [])).join('');
  const toolCalls: ToolCall[] = blocked ? [] : blocks.flatMap((block) => (block.toolUse ? [toolCall(block.toolUse, ids)] : []));
  const content = blocked !== undefined && text.trim() === '' ? blocked : text === '' ? null : text;
  return {
    content,
    toolCalls,
    ...(reasoningText === '' ? {} : { reasoning: { text: reasoningText } }),
    ...withBedrockData({ reasoning, ...(blocked ? { stopReason } : {}) }),
    ...(blocked ? { stop: 'content_filtered' as const } : CUT_SHORT.has(stopReason) ? { stop: 'max_tokens' as const } : {}),
    usage: usageOf(result.usage),
  };
}

function toolCall(toolUse: NonNullable<ContentBlock['toolUse']>, ids: ToolUseIds): ToolCall {
  const input: unknown = toolUse.input;
  return {
    id: ids.fromWire(toolUse.toolUseId ?? ''),
    name: toolUse.name ?? '',
    // A stream whose input did not parse (cut off by max_tokens) keeps the text as it came.
    arguments: typeof input === 'string' ? input : JSON.stringify(input ?? {}),
  };
}

function storedReasoning(block: ContentBlock): StoredReasoning[] {
  const reasoning = block.reasoningContent;
  if (reasoning === undefined) return [];
  if (reasoning.redactedContent !== undefined) return [{ redacted: Buffer.from(reasoning.redactedContent).toString('base64') }];
  const text = reasoning.reasoningText;
  if (text === undefined) return [];
  return [{ text: text.text ?? '', ...(text.signature === undefined ? {} : { signature: text.signature }) }];
}

function usageOf(usage: ConverseUsage | undefined): BedrockTokenUsage {
  const cacheReadTokens = usage?.cacheReadInputTokens ?? 0;
  const cacheWriteTokens = usage?.cacheWriteInputTokens ?? 0;
  return {
    // inputTokens leaves out what the cache read or wrote; the budgets count every prompt token.
    promptTokens: (usage?.inputTokens ?? 0) + cacheReadTokens + cacheWriteTokens,
    completionTokens: usage?.outputTokens ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
  };
}
