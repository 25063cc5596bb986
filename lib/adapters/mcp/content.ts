/**
 * Renders an MCP tools/call result as the text of a tool message. The model only reads text, and
 * binary payloads would waste its context, so images, audio and blobs become short placeholders
 * (never their base64).
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ImageData } from '../../core/messages.ts';

export const EMPTY_RESULT_TEXT = '(the tool returned no content)';

export function renderToolResult(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string {
  const blocks: ContentBlock[] = Array.isArray(result.content) ? result.content : [];
  const parts = blocks.map(renderBlock);
  // Servers that return structured content put the same JSON in a text block too (as the spec
  // recommends); add it only when no text block carries it.
  const hasText = blocks.some((block) => block.type === 'text');
  if (!hasText && result.structuredContent !== undefined) parts.push(JSON.stringify(withoutBinary(result.structuredContent)));
  return parts.length === 0 ? EMPTY_RESULT_TEXT : parts.join('\n');
}

/** Media types chat models take as image input (OpenAI, Gemini, Claude alike). */
const MODEL_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * The image blocks of a result a model could look at, for model.imageResults (the text describes
 * them either way). Other image types, audio and blobs stay descriptions only.
 */
export function imagesOf(result: Pick<CallToolResult, 'content'>): ImageData[] {
  const blocks: ContentBlock[] = Array.isArray(result.content) ? result.content : [];
  return blocks.flatMap((block) => (block.type === 'image' && MODEL_IMAGE_TYPES.has(block.mimeType.toLowerCase()) ? [{ mimeType: block.mimeType.toLowerCase(), data: block.data }] : []));
}

/** Shorter strings are left alone: ids, hashes and short tokens look like base64 too. */
const MINIMUM_BINARY_LENGTH = 256;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const DATA_URI = /^data:([^;,]*)(;[^,]*)?,/;

/**
 * structuredContent is JSON for programs, and servers put images in it as base64 strings (an
 * `{type: "image", data}` block, a `data:` URI, or a bare field). The model gets a description in
 * their place, as for content blocks; everything else is kept as it is.
 */
function withoutBinary(value: unknown): unknown {
  if (typeof value === 'string') return describeIfBinary(value);
  if (Array.isArray(value)) return value.map(withoutBinary);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if ((record.type === 'image' || record.type === 'audio') && typeof record.data === 'string' && typeof record.mimeType === 'string') {
    return renderBlock(record as unknown as ContentBlock);
  }
  return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, withoutBinary(item)]));
}

function describeIfBinary(text: string): string {
  if (text.length < MINIMUM_BINARY_LENGTH) return text;
  const dataUri = DATA_URI.exec(text);
  if (dataUri) return `[${dataUri[1] || 'binary data'}, ${text.length - dataUri[0].length} characters of ${dataUri[2]?.includes('base64') ? 'base64' : 'data'}, not shown]`;
  // Base64 may be wrapped in lines; a sentence has spaces and punctuation, so it never matches, and
  // 256 characters of letters and digits alone mean nothing to a model either.
  const compact = text.replace(/\s+/g, '');
  if (compact.length >= MINIMUM_BINARY_LENGTH && BASE64.test(compact)) {
    return `[base64 data, ${text.length} characters, not shown]`;
  }
  return text;
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
      return describeBinaryResource(resource);
    }
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>]`;
    default:
      return `[unsupported content: ${String((block as { type?: unknown }).type)}]`;
  }
}

/** A blob resource (embedded in a result, or read with resources/read): what it is, not its bytes. */
export function describeBinaryResource(resource: { uri: string; mimeType?: string | undefined }): string {
  return `[resource: ${resource.uri}, ${resource.mimeType ?? 'unknown type'}]`;
}
