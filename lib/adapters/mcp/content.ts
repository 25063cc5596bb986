/**
 * Renders an MCP tools/call result as the text of a tool message. The model only reads text, and
 * binary payloads would waste its context, so images, audio and blobs become short placeholders
 * (never their base64).
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

export const EMPTY_RESULT_TEXT = '(the tool returned no content)';

export function renderToolResult(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string {
  const blocks: ContentBlock[] = Array.isArray(result.content) ? result.content : [];
  const parts = blocks.map(renderBlock);
  // Servers that return structured content put the same JSON in a text block too (as the spec
  // recommends); add it only when no text block carries it.
  const hasText = blocks.some((block) => block.type === 'text');
  if (!hasText && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  return parts.length === 0 ? EMPTY_RESULT_TEXT : parts.join('\n');
}

export function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${block.data.length} bytes base64]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') return resource.text;
      return `[resource: ${resource.uri}, ${resource.mimeType ?? 'unknown type'}]`;
    }
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>]`;
    default:
      return `[unsupported content: ${String((block as { type?: unknown }).type)}]`;
  }
}
