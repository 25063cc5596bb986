import { createHash, randomUUID } from 'node:crypto';

/** What a question gets when no model is configured (503), and what `npm start` prints. */
export const MODEL_NOT_CONFIGURED =
  'No language model is configured. Set OPENAI_API_KEY for OpenAI (and optionally LLM_MODEL), or point OPENAI_BASE_URL at any OpenAI-compatible endpoint, e.g. OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=qwen2.5 for Ollama or OPENAI_BASE_URL=http://localhost:8000/v1 for vLLM, then restart the service. Deployed on AWS: store the key in the model API key secret of the stack (output ModelApiKeySecretArn), or set modelBaseUrl for an endpoint that needs none.';

/**
 * A new conversation's id. With a requestId it is derived from it (and the owner), so a retried
 * "start a conversation" request lands on the same conversation and gets the stored turn instead of
 * running the tools a second time.
 */
export function newConversationId(requestId: string | undefined, owner: string | undefined): string {
  if (requestId === undefined) return randomUUID();
  const hex = createHash('sha256').update(`${owner ?? ''}\n${requestId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
