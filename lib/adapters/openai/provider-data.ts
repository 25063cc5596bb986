/**
 * What this adapter keeps on a message or a tool call for itself, under `providerData.openai`, and
 * reads back when it sends the history again:
 *
 *   message  reasoningField   the field its reasoning arrived in (`reasoning_content`, `reasoning`):
 *                             DeepSeek refuses a tool-calling history whose reasoning does not come
 *                             back under its own field; the text itself is the message's `reasoning`
 *            extraContent     the message's `extra_content` (Gemini's thought signatures, quirks §2.5)
 *   call     extraContent     the call's `extra_content` (Gemini 3's per-call thought signature)
 *
 * Another provider's entry is never read, so a reply written by Bedrock sends nothing of Bedrock's
 * through this adapter.
 */
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { ProviderData } from '../../core/messages.ts';
import { ownProviderData, providerDataEntry } from '../../core/provider-data.ts';

const PROVIDER_NAME = 'openai';

interface OpenAIMessageData {
  reasoningField?: string;
  extraContent?: JsonObject;
}

interface OpenAICallData {
  extraContent?: JsonObject;
}

type Holder = { providerData?: ProviderData } | undefined;

export function messageData(message: Holder): OpenAIMessageData {
  const own = ownProviderData(message, PROVIDER_NAME);
  return {
    ...(typeof own?.['reasoningField'] === 'string' ? { reasoningField: own['reasoningField'] } : {}),
    ...(isJsonObject(own?.['extraContent']) ? { extraContent: own['extraContent'] } : {}),
  };
}

export function callData(call: Holder): OpenAICallData {
  const extraContent = ownProviderData(call, PROVIDER_NAME)?.['extraContent'];
  return isJsonObject(extraContent) ? { extraContent } : {};
}

/** `{ providerData: { openai: … } }` to spread into a reply or a call; nothing when there is none. */
export const withOpenAIData = (data: OpenAIMessageData | OpenAICallData): { providerData?: ProviderData } => providerDataEntry(PROVIDER_NAME, { ...data });
