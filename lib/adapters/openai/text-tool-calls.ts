import type { ToolCall } from '../../core/messages.ts';
import type { ModelReply, ModelRequest } from '../../core/ports/model.ts';
import { generateToolCallId } from './normalize.ts';
import { isJsonObject } from '../../core/json.ts';

/**
 * Tool calls a server wrote into `content` instead of `tool_calls` (vLLM or llama.cpp without a
 * working tool parser, LM Studio, older Ollama; quirks report §2.6):
 *
 *   <tool_call>{"name": "getWeather", "arguments": {"city": "上海"}}</tool_call>        hermes / Qwen
 *   <tool_call><function=getWeather><parameter=city>上海</parameter></function></tool_call>  Qwen3-Coder
 *   <|python_tag|>{"name": "getWeather", "parameters": {"city": "上海"}}                 Llama 3.x
 *   ```json {"name": "getWeather", "arguments": {...}} ```  or the bare object, as the whole reply
 *
 * Used only when the model is configured for it (`model.textToolCalls`), only when the reply has no
 * real tool calls and consists of the calls alone, and only for names of tools that were offered,
 * so a reply that merely talks about tool-call syntax stays text.
 */
interface TextToolCalls {
  content: string | null;
  calls: ToolCall[];
}

const TOOL_CALL_BLOCK = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const FUNCTION_BLOCK = /<function=([^>\s]+)>([\s\S]*?)<\/function>/g;
const PARAMETER_BLOCK = /<parameter=([^>\s]+)>\s*([\s\S]*?)\s*<\/parameter>/g;
const PYTHON_TAG = /<\|python_tag\|>\s*(\{[\s\S]*\})\s*$/;
const WHOLE_JSON = /^\s*(?:```(?:json)?\s*)?(\{[\s\S]*\})\s*(?:```)?\s*$/;

export function extractTextToolCalls(content: string, toolNames: ReadonlySet<string>, makeId: () => string): TextToolCalls | undefined {
  const found: Array<{ name: string; arguments: string }> = [];
  let rest = content;
  const take = (pattern: RegExp, parse: (match: RegExpMatchArray) => { name: string; arguments: string } | undefined) => {
    for (const match of [...rest.matchAll(new RegExp(pattern.source, 'g'))]) {
      const call = parse(match);
      if (!call || !toolNames.has(call.name)) continue;
      found.push(call);
      rest = rest.replace(match[0], '');
    }
  };
  take(TOOL_CALL_BLOCK, (match) => fromJson(match[1]!) ?? fromFunctionXml(match[1]!));
  take(FUNCTION_BLOCK, (match) => fromFunctionXml(match[0]));
  take(PYTHON_TAG, (match) => fromJson(match[1]!));
  if (found.length === 0) take(WHOLE_JSON, (match) => fromJson(match[1]!));
  if (found.length === 0) return undefined;
  const remaining = rest.trim();
  return { content: remaining === '' ? null : remaining, calls: found.map((call) => ({ id: makeId(), ...call })) };
}

/** {"name", "arguments" | "parameters"}, or {"type": "function", "function": {...}}. */
function fromJson(text: string): { name: string; arguments: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const object = asObject(value);
  const call = asObject(object?.function) ?? object;
  if (!call || typeof call.name !== 'string') return undefined;
  const args = call.arguments ?? call.parameters ?? {};
  return { name: call.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

/** <function=name><parameter=key>value</parameter>...</function>; values are JSON when they parse. */
function fromFunctionXml(text: string): { name: string; arguments: string } | undefined {
  const match = new RegExp(FUNCTION_BLOCK.source).exec(text);
  if (!match) return undefined;
  const args: Record<string, unknown> = {};
  for (const parameter of match[2]!.matchAll(PARAMETER_BLOCK)) args[parameter[1]!] = jsonOrText(parameter[2]!);
  return { name: match[1]!, arguments: JSON.stringify(args) };
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const asObject = (value: unknown): Record<string, unknown> | undefined => (isJsonObject(value) ? value : undefined);

/**
 * A reply without tool calls whose text is nothing but calls to offered tools (quirks §2.6) gets
 * them as calls. A reply that has anything else to say stays text, whatever it quotes: a model
 * explaining tool-call syntax must never cancel an order.
 */
export function withTextToolCalls(reply: ModelReply, tools: ModelRequest['tools']): ModelReply {
  if (reply.toolCalls.length > 0 || reply.content === null || tools.length === 0) return reply;
  const found = extractTextToolCalls(reply.content, new Set(tools.map((tool) => tool.name)), generateToolCallId);
  return found && found.content === null ? { ...reply, content: null, toolCalls: found.calls } : reply;
}
