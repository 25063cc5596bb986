/**
 * What this adapter keeps on an assistant message for itself, under `extraContent.bedrock`, and
 * reads back unchanged: the reply's reasoning blocks with their signatures (Bedrock refuses a
 * tool-use turn of a thinking model whose reasoning does not come back exactly as it was given),
 * and a stop reason that was not an ordinary one (a guardrail's intervention), so the stored
 * conversation says what happened.
 *
 * The core has no per-provider slot yet (README, "Models"): `extraContent` is the one opaque field a
 * message has, so the data sits there under this provider's key. Redacted reasoning is bytes; it is
 * kept as base64 so the message stays JSON.
 */
import { isJsonObject } from '../../core/json.ts';

export const PROVIDER_KEY = 'bedrock';

export type StoredReasoning = { text: string; signature?: string } | { redacted: string };

export interface BedrockMessageData {
  reasoning?: StoredReasoning[];
  /** Only when it was not `end_turn`, `tool_use` or `stop_sequence`. */
  stopReason?: string;
}

export function withProviderData(data: BedrockMessageData): Record<string, unknown> | undefined {
  const hasReasoning = (data.reasoning?.length ?? 0) > 0;
  if (!hasReasoning && data.stopReason === undefined) return undefined;
  return {
    [PROVIDER_KEY]: {
      ...(hasReasoning ? { reasoning: data.reasoning } : {}),
      ...(data.stopReason === undefined ? {} : { stopReason: data.stopReason }),
    },
  };
}

/** This adapter's data of a message, ignoring anything another provider keeps there. */
export function providerDataOf(extraContent: Record<string, unknown> | undefined): BedrockMessageData {
  const data = extraContent?.[PROVIDER_KEY];
  if (!isJsonObject(data)) return {};
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
