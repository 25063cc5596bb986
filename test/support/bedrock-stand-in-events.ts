/**
 * ConverseStream events, and the stream Bedrock sends for a given Converse response: messageStart,
 * each content block as a start (tool calls), deltas in small pieces and a stop, then messageStop
 * and metadata with the usage. Text and tool input are cut into pieces of a few characters (UTF-8
 * characters whole), so the adapter has fragments to join.
 */
export type StandInEvent = { type: string; payload: Record<string, unknown> } | { exception: string; message: string };

type Block = Record<string, unknown>;

const PIECE = 5;

export function eventsOf(reply: Record<string, unknown>): StandInEvent[] {
  const message = (reply['output'] as { message?: { content?: Block[] } } | undefined)?.message;
  const events: StandInEvent[] = [{ type: 'messageStart', payload: { role: 'assistant' } }];
  (message?.content ?? []).forEach((block, contentBlockIndex) => {
    const delta = (payload: Record<string, unknown>) => events.push({ type: 'contentBlockDelta', payload: { contentBlockIndex, delta: payload } });
    if (typeof block['text'] === 'string') for (const piece of pieces(block['text'])) delta({ text: piece });
    const toolUse = block['toolUse'] as { toolUseId: string; name: string; input: unknown } | undefined;
    if (toolUse) {
      events.push({ type: 'contentBlockStart', payload: { contentBlockIndex, start: { toolUse: { toolUseId: toolUse.toolUseId, name: toolUse.name } } } });
      for (const piece of pieces(JSON.stringify(toolUse.input))) delta({ toolUse: { input: piece } });
    }
    const reasoning = block['reasoningContent'] as { reasoningText?: { text: string; signature?: string } } | undefined;
    if (reasoning?.reasoningText) {
      for (const piece of pieces(reasoning.reasoningText.text)) delta({ reasoningContent: { text: piece } });
      if (reasoning.reasoningText.signature) delta({ reasoningContent: { signature: reasoning.reasoningText.signature } });
    }
    events.push({ type: 'contentBlockStop', payload: { contentBlockIndex } });
  });
  events.push({ type: 'messageStop', payload: { stopReason: reply['stopReason'] } });
  events.push({ type: 'metadata', payload: { usage: reply['usage'] ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, metrics: { latencyMs: 1 } } });
  return events;
}

function pieces(text: string): string[] {
  const characters = [...text];
  const result: string[] = [];
  for (let start = 0; start < characters.length; start += PIECE) result.push(characters.slice(start, start + PIECE).join(''));
  return result;
}

/** Replies as Converse writes them. */
export const usage = (inputTokens: number, outputTokens: number, cache: { read?: number; write?: number } = {}) => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens + (cache.read ?? 0) + (cache.write ?? 0),
  ...(cache.read === undefined ? {} : { cacheReadInputTokens: cache.read }),
  ...(cache.write === undefined ? {} : { cacheWriteInputTokens: cache.write }),
});

export function converseText(text: string, stopReason = 'end_turn', tokens = usage(20, 5)) {
  return { output: { message: { role: 'assistant', content: [{ text }] } }, stopReason, usage: tokens };
}

export function converseToolUse(calls: Array<{ toolUseId: string; name: string; input: Record<string, unknown> }>, text?: string, tokens = usage(30, 12)) {
  return {
    output: { message: { role: 'assistant', content: [...(text ? [{ text }] : []), ...calls.map((call) => ({ toolUse: call }))] } },
    stopReason: 'tool_use',
    usage: tokens,
  };
}
