import { describe, expect, it } from 'vitest';
import { BoundedBytes, ByteWindow } from '../../lib/adapters/mcp/bounded/bytes.ts';

/** A message of `length` bytes whose every byte says where it is, cut into chunks of the sizes given (repeated). */
function chunksOf(length: number, sizes: number[]): Buffer[] {
  const bytes = Buffer.from(Array.from({ length }, (_, index) => 'abcdefghijklmnopqrstuvwxyz0123456789'[index % 36]).join(''));
  const chunks: Buffer[] = [];
  for (let at = 0, next = 0; at < length; next++) {
    const size = sizes[next % sizes.length]!;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/** What a window shows: its length and both edges. */
const shown = (window: ByteWindow) => ({ bytes: window.bytes, head: window.head, tail: window.tail });

function streamedWindow(chunks: Buffer[]): ByteWindow {
  const window = new ByteWindow();
  for (const chunk of chunks) window.add(chunk);
  return window;
}

describe('BoundedBytes', () => {
  it.each([
    ['one chunk within the limit', 700, [700], 5_000],
    ['small chunks within the limit', 4_000, [3, 50, 1], 5_000],
    ['one chunk over the limit', 9_000, [9_000], 5_000],
    ['small chunks passing the limit', 12_000, [7, 300, 2], 5_000],
    ['chunks larger than an edge passing the limit', 20_000, [1_500, 2_500], 5_000],
    ['a chunk that passes the limit by one byte', 5_001, [5_000, 1], 5_000],
  ])('shows the same window as one kept while streaming, for %s', (_name, length, sizes, limit) => {
    const chunks = chunksOf(length, sizes);
    const bounded = new BoundedBytes(limit);
    const passed = chunks.map((chunk) => bounded.add(chunk));
    // Only the chunk that passed the limit says so, once.
    expect(passed.filter(Boolean)).toHaveLength(length > limit ? 1 : 0);
    expect(bounded.overflowed).toBe(length > limit);
    expect(bounded.bytes).toBe(length);
    expect(shown(bounded.window)).toEqual(shown(streamedWindow(chunks)));
    if (length <= limit) expect(bounded.whole().toString()).toBe(Buffer.concat(chunks).toString());
  });

  it('says which chunk passed the limit, and ignores empty chunks', () => {
    const bounded = new BoundedBytes(10);
    expect(bounded.add(Buffer.from('12345'))).toBe(false);
    expect(bounded.add(Buffer.alloc(0))).toBe(false);
    expect(bounded.add(Buffer.from('67890'))).toBe(false);
    expect(bounded.add(Buffer.from('x'))).toBe(true);
    expect(bounded.add(Buffer.from('more'))).toBe(false);
    expect(bounded.bytes).toBe(15);
    expect(bounded.window.tail).toBe('1234567890xmore');
  });
});
