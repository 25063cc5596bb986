/**
 * Streamed Chat Completions chunks → the completion body a non-streaming call would have returned,
 * so normalize.ts reads both and a streamed reply is the same reply. Pure: no I/O, no clock.
 *
 * Providers stream differently (../shared/fixtures/llm-quirks.md §2.7), and this is the rule that
 * passes every recording:
 *
 *   a tool-call entry belongs to   the call of its `index`, when the index is a number ≥ 0
 *                                   (a new id and a name at a taken index start a new call:
 *                                   gateways that send every call at index 0)
 *                                  else the call with its non-empty `id`
 *                                  else the last call (LiteLLM's index -1, no id, no name)
 *                                  else a new call
 *   id, type, name                 set once, from the first non-empty value (Fireworks repeats
 *                                   them, Alibaba sends id "" on continuations)
 *   arguments                      concatenated; several entries of one delta are fragments in order
 *   content, reasoning fields      concatenated per field, present once a string arrived
 *   usage                          the last usage object (the finish chunk or a `choices: []`
 *                                   chunk), else Groq's `x_groq.usage`
 *
 * `choices: []` chunks (Azure's prompt filter results, the usage chunk) add no message content.
 */
import { isJsonObject } from '../../core/json.ts';

type Json = Record<string, unknown>;

/** Reasoning arrives under either name (DeepSeek, xAI, llama.cpp / vLLM, Ollama, Groq), as in normalize.ts. */
const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const;

/** A piece of text the model wrote, as it arrived, before any interpretation. */
export interface StreamedText {
  field: 'content' | (typeof REASONING_FIELDS)[number];
  text: string;
}

interface CallDraft {
  index?: number;
  id?: string;
  type?: string;
  name?: string;
  arguments: string;
  /** Arguments sent as a JSON value rather than text (llama.cpp's object arguments). */
  argumentsValue?: unknown;
  extraContent?: Json;
}

interface CompletionAccumulator {
  /** Adds one parsed chunk; returns the text it carried, in order, for deltas. */
  add(chunk: unknown): StreamedText[];
  /** True once a chunk carried a choice for the reply. */
  readonly hasReply: boolean;
  /** True once the reply's choice carried a finish_reason: the provider says the reply is whole. */
  readonly finished: boolean;
  /** The body so far, shaped like a non-streamed completion (`choices: []` before any choice). */
  completion(): Json;
}

export function createCompletionAccumulator(): CompletionAccumulator {
  const texts = new Map<StreamedText['field'], string>();
  const calls: CallDraft[] = [];
  let role: string | undefined;
  let finishReason: unknown = null;
  let usage: Json | undefined;
  let fallbackUsage: Json | undefined;
  let extraContent: Json | undefined;
  let hasReply = false;

  function addToolCall(entry: Json): void {
    const wireFunction = isJsonObject(entry['function']) ? entry['function'] : {};
    const id = nonEmpty(entry['id']);
    const name = nonEmpty(wireFunction['name']);
    const call = callFor(entry['index'], id, name);
    call.id ??= id;
    call.type ??= nonEmpty(entry['type']);
    call.name ??= name;
    const fragment = wireFunction['arguments'];
    if (typeof fragment === 'string') call.arguments += fragment;
    else if (fragment !== undefined && fragment !== null) call.argumentsValue = fragment;
    if (isJsonObject(entry['extra_content'])) call.extraContent = mergeObjects(call.extraContent, entry['extra_content']);
  }

  function callFor(rawIndex: unknown, id: string | undefined, name: string | undefined): CallDraft {
    const index = typeof rawIndex === 'number' && Number.isInteger(rawIndex) && rawIndex >= 0 ? rawIndex : undefined;
    if (index !== undefined) {
      const atIndex = findLast(calls, (call) => call.index === index);
      const startsAnother = atIndex?.id !== undefined && id !== undefined && id !== atIndex.id && name !== undefined;
      return atIndex && !startsAnother ? atIndex : open({ index });
    }
    if (id !== undefined) return calls.find((call) => call.id === id) ?? open({});
    return calls.at(-1) ?? open({});
  }

  function open(draft: Omit<CallDraft, 'arguments'>): CallDraft {
    const call: CallDraft = { ...draft, arguments: '' };
    calls.push(call);
    return call;
  }

  function addChoice(choice: Json): StreamedText[] {
    hasReply = true;
    if (choice['finish_reason'] !== undefined && choice['finish_reason'] !== null) finishReason = choice['finish_reason'];
    const delta = isJsonObject(choice['delta']) ? choice['delta'] : isJsonObject(choice['message']) ? choice['message'] : {};
    role ??= nonEmpty(delta['role']);
    const carried: StreamedText[] = [];
    for (const field of ['content', ...REASONING_FIELDS] as const) {
      const text = delta[field];
      if (typeof text !== 'string') continue;
      texts.set(field, (texts.get(field) ?? '') + text);
      if (text !== '') carried.push({ field, text });
    }
    if (Array.isArray(delta['tool_calls'])) {
      for (const entry of delta['tool_calls']) if (isJsonObject(entry)) addToolCall(entry);
    }
    if (isJsonObject(delta['extra_content'])) extraContent = mergeObjects(extraContent, delta['extra_content']);
    return carried;
  }

  return {
    add(chunk: unknown): StreamedText[] {
      if (!isJsonObject(chunk)) return [];
      if (isJsonObject(chunk['usage'])) usage = chunk['usage'];
      const groq = chunk['x_groq'];
      if (isJsonObject(groq) && isJsonObject(groq['usage'])) fallbackUsage = groq['usage'];
      const choice = replyChoice(chunk['choices']);
      return choice ? addChoice(choice) : [];
    },
    get hasReply() {
      return hasReply;
    },
    get finished() {
      return finishReason !== null;
    },
    completion(): Json {
      const finalUsage = usage ?? fallbackUsage;
      if (!hasReply) return { choices: [], ...(finalUsage ? { usage: finalUsage } : {}) };
      const message: Json = { role: role ?? 'assistant' };
      for (const [field, text] of texts) message[field] = text;
      if (calls.length > 0) message['tool_calls'] = calls.map(toWireCall);
      if (extraContent) message['extra_content'] = extraContent;
      return {
        choices: [{ index: 0, message, finish_reason: finishReason }],
        ...(finalUsage ? { usage: finalUsage } : {}),
      };
    },
  };
}

/** The choice of the reply: index 0, or the only one when a provider leaves the index out. */
function replyChoice(choices: unknown): Json | undefined {
  if (!Array.isArray(choices)) return undefined;
  const found: unknown = choices.find((choice) => isJsonObject(choice) && (choice['index'] === 0 || choice['index'] === undefined));
  return isJsonObject(found) ? found : undefined;
}

function toWireCall(call: CallDraft): Json {
  const text = call.arguments;
  return {
    ...(call.id === undefined ? {} : { id: call.id }),
    type: call.type ?? 'function',
    function: {
      ...(call.name === undefined ? {} : { name: call.name }),
      // Text wins when there is any; a value sent whole is kept for normalize.ts to serialize.
      arguments: text === '' && call.argumentsValue !== undefined ? call.argumentsValue : text,
    },
    ...(call.extraContent ? { extra_content: call.extraContent } : {}),
  };
}

const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function findLast<Item>(items: Item[], matches: (item: Item) => boolean): Item | undefined {
  for (let position = items.length - 1; position >= 0; position -= 1) if (matches(items[position]!)) return items[position];
  return undefined;
}

/** Provider data that may arrive in parts (Gemini's thought signature): later keys add to earlier ones. */
function mergeObjects(earlier: Json | undefined, later: Json): Json {
  if (!earlier) return later;
  const merged: Json = { ...earlier };
  for (const [key, value] of Object.entries(later)) {
    const before = merged[key];
    merged[key] = isJsonObject(before) && isJsonObject(value) ? mergeObjects(before, value) : value;
  }
  return merged;
}
