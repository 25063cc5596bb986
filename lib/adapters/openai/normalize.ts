/**
 * Turns a Chat Completions response body, as any OpenAI-compatible provider sends it, into a
 * domain `ModelReply`. Providers differ on the wire (../shared/fixtures/llm-quirks.md): ids empty or
 * repeated, `arguments` as an object, `content` null, "" or absent, `finish_reason` unreliable,
 * reasoning in a side field or inline as `<think>`. Everything after this function can rely on:
 * tool calls decided by their presence, ids unique and non-empty, arguments a string, content or null.
 */
import { randomInt } from 'node:crypto';
import { ModelError } from '../../core/errors.ts';
import type { TokenUsage, ToolCall } from '../../core/messages.ts';
import type { ModelReply } from '../../core/ports/model.ts';
import { isJsonObject } from '../../core/json.ts';
import { withOpenAIData } from './provider-data.ts';

type Json = Record<string, unknown>;

/** Reasoning as it came: its text, and the field it came in (kept as this adapter's provider data). */
interface WireReasoning {
  field: string;
  text: string;
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** An id in OpenAI's own shape (`call_` + 24 alphanumerics), which every provider accepts back. */
export function generateToolCallId(): string {
  let suffix = '';
  for (let index = 0; index < 24; index += 1) suffix += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return `call_${suffix}`;
}

/** A reasoning model's thoughts written inline at the start of the content (vLLM without reasoning parser). */
const LEADING_THINK_BLOCK = /^\s*<think>([\s\S]*?)<\/think>\s*/;

/** The field a `<think>` block is echoed back under: the name most OpenAI-compatible servers read. */
const INLINE_THINK_FIELD = 'reasoning_content';

const isObject = (value: unknown): value is Json => isJsonObject(value);

export function normalizeCompletion(body: unknown, makeId: () => string = generateToolCallId): ModelReply {
  const message = firstMessage(body);
  const { content, inlineReasoning } = splitContent(message['content']);
  const fieldReasoning = reasoningField(message);
  // A reasoning field with text wins; then an inline <think> block; an empty field is still echoed.
  const reasoning = fieldReasoning?.text ? fieldReasoning : (inlineReasoning ?? fieldReasoning);
  const calls = toolCalls(message['tool_calls'], makeId);
  // Calls were asked for, but none names its tool, and there is no text: not an empty answer
  // (LiteLLM's index -1 stream loses the name), but nothing to run or to show.
  if (calls.length === 0 && content === null && Array.isArray(message['tool_calls']) && message['tool_calls'].length > 0) {
    throw new ModelError('model_bad_response', `The model answered with ${message['tool_calls'].length === 1 ? 'a tool call that names no tool' : 'tool calls that name no tool'} and no text, so there is nothing to run or to show.`);
  }
  return {
    content,
    toolCalls: calls,
    ...(reasoning ? { reasoning: { text: reasoning.text } } : {}),
    // Gemini's thought signatures: the next request is refused unless they come back (quirks §2.5).
    ...withOpenAIData({ reasoningField: reasoning?.field, extraContent: isObject(message['extra_content']) ? message['extra_content'] : undefined }),
    ...stopOf(body),
    usage: usage(isObject(body) ? body['usage'] : undefined),
  };
}

function firstMessage(body: unknown): Json {
  const choices = isObject(body) ? body['choices'] : undefined;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  const message = isObject(choice) ? choice['message'] : undefined;
  if (isObject(message)) return message;
  // Some gateways answer HTTP 200 with an error envelope instead of a completion.
  const providerError = isObject(body) && isObject(body['error']) ? body['error']['message'] : undefined;
  // The provider's words go to the log only (ModelError.detail): they may name internal hosts.
  throw new ModelError('model_bad_response', 'The model endpoint answered without choices[0].message, so there is no reply to use.', {
    ...(typeof providerError === 'string' ? { detail: providerError.slice(0, 500) } : {}),
  });
}

/**
 * `finish_reason` says why a text reply ended, never whether to call tools (quirks §2.4): `length`
 * (the output limit) and `content_filter` are worth telling the caller; anything else is an ordinary end.
 */
function stopOf(body: unknown): Pick<ModelReply, 'stop'> {
  const choices = isObject(body) ? body['choices'] : undefined;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  const finish = isObject(choice) ? choice['finish_reason'] : undefined;
  if (finish === 'length') return { stop: 'max_tokens' };
  if (finish === 'content_filter') return { stop: 'content_filtered' };
  return {};
}

/** Only a non-empty `tool_calls` list means "call tools": never `finish_reason` (quirks §2.4). */
function toolCalls(raw: unknown, makeId: () => string): ToolCall[] {
  if (!Array.isArray(raw)) return [];
  const usable = raw.flatMap((entry: unknown) => {
    const wireFunction = isObject(entry) ? entry['function'] : undefined;
    const name = isObject(wireFunction) ? wireFunction['name'] : undefined;
    // A call without a function name cannot be executed or answered (LM Studio sends such entries).
    if (!isObject(entry) || !isObject(wireFunction) || typeof name !== 'string' || name.trim() === '') return [];
    const providerData = withOpenAIData({ extraContent: isObject(entry['extra_content']) ? entry['extra_content'] : undefined });
    return [{ id: entry['id'], name, arguments: argumentsText(wireFunction['arguments']), ...providerData }];
  });
  // Provider ids are kept wherever usable (Mistral accepts only its own back); first come, first kept.
  const keptIds = new Set<string>();
  const ids = usable.map(({ id }) => {
    if (typeof id !== 'string' || id.trim() === '' || keptIds.has(id)) return undefined;
    keptIds.add(id);
    return id;
  });
  return usable.map((call, index) => ({ ...call, id: ids[index] ?? freshId(keptIds, makeId) }));
}

/** A generated id that collides with no other id of the reply. */
function freshId(usedIds: Set<string>, makeId: () => string): string {
  let id = makeId();
  while (usedIds.has(id)) id = makeId();
  usedIds.add(id);
  return id;
}

/** A string as sent (even if not JSON: the loop reports that to the model); an object serialized. */
function argumentsText(raw: unknown): string {
  if (typeof raw === 'string') return raw.trim() === '' ? '{}' : raw;
  if (raw === undefined || raw === null) return '{}';
  return JSON.stringify(raw);
}

function splitContent(raw: unknown): { content: string | null; inlineReasoning?: WireReasoning } {
  if (typeof raw !== 'string') return { content: null };
  const think = LEADING_THINK_BLOCK.exec(raw);
  const text = think ? raw.slice(think[0].length) : raw;
  const content = text.trim() === '' ? null : text;
  const thought = think?.[1]?.trim();
  return thought ? { content, inlineReasoning: { field: INLINE_THINK_FIELD, text: thought } } : { content };
}

/** DeepSeek, xAI and llama.cpp use `reasoning_content`; vLLM, Ollama and Groq use `reasoning`. */
const REASONING_FIELDS = ['reasoning_content', 'reasoning'];

/**
 * The reasoning field with text, else an empty one: DeepSeek expects `reasoning_content` back on
 * every assistant turn of a tool-calling exchange, even when it was "".
 */
function reasoningField(message: Json): WireReasoning | undefined {
  const present = REASONING_FIELDS.filter((field) => typeof message[field] === 'string');
  const field = present.find((name) => message[name] !== '') ?? present[0];
  return field === undefined ? undefined : { field, text: String(message[field]) };
}

function usage(raw: unknown): TokenUsage {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  if (!isObject(raw)) return { promptTokens: 0, completionTokens: 0 };
  // OpenAI counts cached tokens inside prompt_tokens, and says how many were: reported when any were.
  const details = raw['prompt_tokens_details'];
  const cached = isObject(details) ? count(details['cached_tokens']) : 0;
  return { promptTokens: count(raw['prompt_tokens']), completionTokens: count(raw['completion_tokens']), ...(cached > 0 ? { cacheReadTokens: cached } : {}) };
}
