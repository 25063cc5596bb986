/**
 * model.imageResults: a tool message is text (an image in it is only described: `[image:
 * image/png, 1234 bytes base64]`), so the images of a round's results are shown to the model as
 * image parts of a user message placed right after that round's tool messages, in every model
 * call of the rest of the turn. They are never stored: the conversation keeps the descriptions,
 * valid for any provider, and later turns do not carry the images again.
 */
import type { HistoryMessage } from '../../core/messages.ts';
import type { ImageData } from '../../core/messages.ts';
import type { AgentExtension, TurnContext } from '../../agent/extension-api/extension.ts';

interface ShownImages {
  callId: string;
  tool: string;
  images: ImageData[];
}

export function imageResultsExtension(): AgentExtension {
  return {
    name: 'imageResults',
    async aroundToolCall(call, next, turn) {
      const output = await next();
      if (output.images?.length) shown(turn).push({ callId: call.id, tool: call.name, images: output.images });
      return output;
    },
    beforeModelCall(request, turn) {
      const images = shown(turn);
      if (images.length === 0) return;
      return { ...request, messages: withImages(request.messages, images) };
    },
  };
}

/** This turn's images, in the scratch: they live as long as the turn runs in this process. */
function shown(turn: TurnContext): ShownImages[] {
  return ((turn.scratch.images as ShownImages[] | undefined) ??= []);
}

/** After each block of tool messages that answers calls with images, one user message holding them. */
export function withImages(messages: readonly HistoryMessage[], images: readonly ShownImages[]): HistoryMessage[] {
  const byCall = new Map(images.map((entry) => [entry.callId, entry]));
  const result: HistoryMessage[] = [];
  let block: ShownImages[] = [];
  const closeBlock = () => {
    if (block.length === 0) return;
    const names = block.map((entry) => `${entry.tool} (${entry.callId}): ${entry.images.length} image${entry.images.length === 1 ? '' : 's'}`).join('; ');
    result.push({ role: 'user', content: `The images the tool results above describe, in order. ${names}.`, images: block.flatMap((entry) => entry.images) });
    block = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') closeBlock();
    result.push(message);
    const entry = message.role === 'tool' ? byCall.get(message.toolCallId) : undefined;
    if (entry) block.push(entry);
  }
  closeBlock();
  return result;
}
