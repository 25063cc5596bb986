/**
 * What this adapter keeps on an assistant message for itself, under `providerData.bedrock`, and
 * reads back unchanged: the reply's reasoning blocks with their signatures (Bedrock refuses a
 * tool-use turn of a thinking model whose reasoning does not come back exactly as it was given),
 * and a stop reason that was not an ordinary one (a guardrail's intervention), so the stored
 * conversation says what happened. The reasoning's text is also the message's neutral `reasoning`,
 * for the page and the trace; only this entry goes back on the wire.
 *
 * Another provider's entry is never read. Redacted reasoning is bytes; it is kept as base64 so the
 * message stays JSON.
 */
import { isJsonObject } from '../../core/json.ts';
import type { ProviderData } from '../../core/messages.ts';
import { ownProviderData, providerDataEntry } from '../../core/provider-data.ts';

const PROVIDER_NAME = 'bedrock';

export type StoredReasoning = { text: string; signature?: string } | { redacted: string };

interface BedrockMessageData {
  reasoning?: StoredReasoning[];
  /** Only when it was not `end_turn`, `tool_use` or `stop_sequence`. */
  stopReason?: string;
}

/** `{ providerData: { bedrock: … } }` to spread into a reply; nothing when there is nothing to keep. */
export function withBedrockData(data: BedrockMessageData): { providerData?: ProviderData } {
  const hasReasoning = (data.reasoning?.length ?? 0) > 0;
  return providerDataEntry(PROVIDER_NAME, { reasoning: hasReasoning ? data.reasoning : undefined, stopReason: data.stopReason });
}

/** This adapter's data of a message, ignoring anything another provider keeps there. */
export function bedrockDataOf(message: { providerData?: ProviderData }): BedrockMessageData {
  const data = ownProviderData(message, PROVIDER_NAME);
  if (data === undefined) return {};
  const reasoning = Array.isArray(data['reasoning']) ? data['reasoning'].filter(isStoredReasoning) : [];
  return {
    ...(reasoning.length > 0 ? { reasoning } : {}),
    ...(typeof data['stopReason'] === 'string' ? { stopReason: data['stopReason'] } : {}),
  };
}

function isStoredReasoning(value: unknown): value is StoredReasoning {
  if (!isJsonObject(value)) return false;
  if (typeof value['redacted'] === 'string') return true;
  return typeof value['text'] === 'string' && (value['signature'] === undefined || typeof value['signature'] === 'string');
}
