import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { EMPTY_RESULT_TEXT, renderToolResult } from '../../lib/adapters/mcp/content.ts';

const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('renderToolResult', () => {
  it('joins text blocks with a newline', () => {
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'first' },
        { type: 'text', text: 'second' },
      ],
    };

    expect(renderToolResult(result)).toBe('first\nsecond');
  });

  it('shows an image as a placeholder with its type and size, never its base64', () => {
    const result: CallToolResult = { content: [{ type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' }] };

    const text = renderToolResult(result);

    expect(text).toBe(`[image: image/png, ${TINY_PNG_BASE64.length} bytes base64]`);
    expect(text).not.toContain(TINY_PNG_BASE64.slice(0, 20));
  });

  it('shows audio as a placeholder too', () => {
    const result: CallToolResult = { content: [{ type: 'audio', data: 'UklGRiQAAABXQVZF', mimeType: 'audio/wav' }] };

    expect(renderToolResult(result)).toBe('[audio: audio/wav, 16 bytes base64]');
  });

  it('gives the text of an embedded text resource', () => {
    const result: CallToolResult = {
      content: [{ type: 'resource', resource: { uri: 'demo://notes/1', mimeType: 'text/plain', text: 'note one' } }],
    };

    expect(renderToolResult(result)).toBe('note one');
  });

  it('shows an embedded binary resource as a placeholder with its uri and mime type', () => {
    const result: CallToolResult = {
      content: [{ type: 'resource', resource: { uri: 'demo://blob/1', mimeType: 'application/pdf', blob: 'JVBERi0x' } }],
    };

    const text = renderToolResult(result);

    expect(text).toBe('[resource: demo://blob/1, application/pdf]');
    expect(text).not.toContain('JVBERi0x');
  });

  it('shows a resource link with its name and uri', () => {
    const result: CallToolResult = {
      content: [{ type: 'resource_link', name: 'readme', uri: 'file:///project/README.md', mimeType: 'text/markdown' }],
    };

    expect(renderToolResult(result)).toBe('[resource link: readme <file:///project/README.md>]');
  });

  it('includes structured content as JSON when no text block carries it', () => {
    const result: CallToolResult = { content: [], structuredContent: { temperature: 21, unit: 'C' } };

    expect(renderToolResult(result)).toBe('{"temperature":21,"unit":"C"}');
  });

  it('does not repeat structured content when a text block is present', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: '{"temperature":21}' }],
      structuredContent: { temperature: 21 },
    };

    expect(renderToolResult(result)).toBe('{"temperature":21}');
  });

  it('says clearly that the tool returned nothing when the result is empty', () => {
    expect(renderToolResult({ content: [] })).toBe(EMPTY_RESULT_TEXT);
    expect(EMPTY_RESULT_TEXT).toBe('(the tool returned no content)');
  });

  it('keeps mixed content in order', () => {
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'Here is the chart:' },
        { type: 'image', data: 'AAAA', mimeType: 'image/jpeg' },
        { type: 'resource_link', name: 'data', uri: 'demo://data' },
      ],
    };

    expect(renderToolResult(result)).toBe('Here is the chart:\n[image: image/jpeg, 4 bytes base64]\n[resource link: data <demo://data>]');
  });

  it('describes base64 in structured content instead of sending it: bare strings, data: URIs and image blocks', () => {
    const base64 = Buffer.alloc(3_000, 9).toString('base64');
    const result: CallToolResult = {
      content: [{ type: 'image', data: base64, mimeType: 'image/png' }],
      structuredContent: {
        title: 'chart',
        raw: base64,
        preview: `data:image/jpeg;base64,${base64}`,
        blocks: [{ type: 'image', data: base64, mimeType: 'image/webp' }],
        sentence: 'A long sentence is kept as it is. '.repeat(20),
      },
    };

    const text = renderToolResult(result);

    expect(text).not.toContain(base64.slice(0, 40));
    expect(JSON.parse(text.slice(text.indexOf('\n') + 1))).toEqual({
      title: 'chart',
      raw: `[base64 data, ${base64.length} characters, not shown]`,
      preview: `[image/jpeg, ${base64.length} characters of base64, not shown]`,
      blocks: [`[image: image/webp, ${base64.length} bytes base64]`],
      sentence: 'A long sentence is kept as it is. '.repeat(20),
    });
  });
});
