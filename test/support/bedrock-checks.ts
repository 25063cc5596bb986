/**
 * What Bedrock's Converse API checks in a request before any model sees it, as far as this service
 * can get wrong: each failure is worded as Bedrock words its ValidationException.
 */
type Json = Record<string, unknown>;

const TOOL_USE_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Undefined when Converse would take the request; otherwise Bedrock's message. */
export function converseProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'The request body is not a JSON object.';
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  const toolConfig = body['toolConfig'];
  const toolProblem = toolConfig === undefined ? undefined : toolConfigProblem(toolConfig);
  if (toolProblem) return toolProblem;
  for (const block of Array.isArray(body['system']) ? body['system'] : []) {
    if (isObject(block) && typeof block['text'] === 'string' && block['text'].trim() === '') return 'The text field in the SystemContentBlock object is blank. Add text to the text field, and try again.';
  }

  let open: string[] = [];
  for (const [index, message] of messages.entries()) {
    if (!isObject(message) || !Array.isArray(message['content'])) return `messages.${index}: a message needs a role and content.`;
    const role = message['role'];
    const expected = index % 2 === 0 ? 'user' : 'assistant';
    if (index === 0 && role !== 'user') return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
    if (role !== expected) return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    const content = message['content'] as unknown[];
    if (content.length === 0) return `The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`;
    const answered: string[] = [];
    const called: string[] = [];
    for (const block of content) {
      if (!isObject(block)) return `messages.${index}: a content block must be an object.`;
      if (typeof block['text'] === 'string' && block['text'].trim() === '') {
        return `The text field in the ContentBlock object at messages.${index}.content is blank. Add text to the text field, and try again.`;
      }
      const toolUse = block['toolUse'];
      const toolResult = block['toolResult'];
      if ((toolUse !== undefined || toolResult !== undefined) && toolConfig === undefined) {
        return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
      }
      if (isObject(toolUse)) {
        if (role !== 'assistant') return `messages.${index}: toolUse blocks belong to assistant messages.`;
        const id = String(toolUse['toolUseId']);
        if (!TOOL_USE_ID.test(id)) return `1 validation error detected: Value '${id}' at 'messages.${index}.member.content.toolUse.toolUseId' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`;
        if (!isObject(toolUse['input'])) return `messages.${index}: toolUse.input must be a JSON object.`;
        called.push(id);
      }
      if (isObject(toolResult)) {
        if (role !== 'user') return `messages.${index}: toolResult blocks belong to user messages.`;
        const id = String(toolResult['toolUseId']);
        if (!TOOL_USE_ID.test(id)) return `1 validation error detected: Value '${id}' at 'messages.${index}.member.content.toolResult.toolUseId' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`;
        const parts = toolResult['content'];
        if (!Array.isArray(parts) || parts.length === 0) return `messages.${index}: toolResult.content must not be empty.`;
        for (const part of parts) {
          if (!isObject(part) || (typeof part['text'] !== 'string' && !isObject(part['json']) && !isObject(part['image']))) return `messages.${index}: a toolResult content block must be text, json (an object) or image.`;
          if (typeof part['text'] === 'string' && part['text'].trim() === '') return `The text field in the ToolResultContentBlock at messages.${index} is blank.`;
        }
        answered.push(id);
      }
    }
    if (role === 'user') {
      const unexpected = answered.filter((id) => !open.includes(id));
      if (unexpected.length > 0) return `The number of toolResult blocks at messages.${index}.content exceeds the number of toolUse blocks of previous turn (no toolUse for ${unexpected.join(', ')}).`;
      const missing = open.filter((id) => !answered.includes(id));
      if (missing.length > 0) return `Expected toolResult blocks at messages.${index}.content for the following Ids: ${missing.join(', ')}`;
      open = [];
    } else {
      if (new Set(called).size !== called.length) return `messages.${index}: toolUse ids must be unique.`;
      open = called;
    }
  }
  if (open.length > 0) return `Expected toolResult blocks after the last message for the following Ids: ${open.join(', ')}`;
  return undefined;
}

function toolConfigProblem(toolConfig: unknown): string | undefined {
  if (!isObject(toolConfig) || !Array.isArray(toolConfig['tools']) || toolConfig['tools'].length === 0) return 'The toolConfig.tools field must hold at least one tool.';
  const names = new Set<string>();
  for (const [index, tool] of toolConfig['tools'].entries()) {
    if (isObject(tool) && isObject(tool['cachePoint'])) continue;
    const spec = isObject(tool) ? tool['toolSpec'] : undefined;
    if (!isObject(spec)) return `toolConfig.tools.${index}: each tool must be a toolSpec or a cachePoint.`;
    const name = spec['name'];
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) return `1 validation error detected: Value '${String(name)}' at 'toolConfig.tools.${index}.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`;
    if (names.has(name)) return `The toolConfig field contains duplicate tool names: ${name}.`;
    names.add(name);
    if (spec['description'] !== undefined && (typeof spec['description'] !== 'string' || spec['description'] === '')) return `toolConfig.tools.${index}.toolSpec.description must have length at least 1.`;
    const schema = isObject(spec['inputSchema']) ? spec['inputSchema']['json'] : undefined;
    if (!isObject(schema) || schema['type'] !== 'object') return `toolConfig.tools.${index}.toolSpec.inputSchema.json must be a JSON schema of type object.`;
  }
  return undefined;
}
