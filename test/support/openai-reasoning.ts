/**
 * A reply's or message's reasoning as the OpenAI adapter sends it back: the field it goes under
 * (the adapter's own provider data) and its text (the message's neutral reasoning).
 */
import type { ProviderData, Reasoning } from '../../lib/core/messages.ts';

export function openAIReasoning(holder: { reasoning?: Reasoning; providerData?: ProviderData }): { field: unknown; text: string | undefined } | undefined {
  const field = holder.providerData?.['openai']?.['reasoningField'];
  if (holder.reasoning === undefined && field === undefined) return undefined;
  return { field, text: holder.reasoning?.text };
}
