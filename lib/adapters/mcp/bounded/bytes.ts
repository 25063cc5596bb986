/**
 * Byte accumulators that never hold more than they are allowed to. A message over the limit is
 * dropped as it streams; what is kept of it is its first and last bytes, which is where a
 * JSON-RPC message names its id (see envelope.ts), and how many bytes it had.
 */

/** Bytes kept at each end of a message that is dropped: room for any plausible envelope. */
const EDGE_BYTES = 1024;

/** The first and last `EDGE_BYTES` of a stream of bytes, and its length. */
export class ByteWindow {
  bytes = 0;
  private headParts: Buffer[] = [];
  private headLength = 0;
  private tailBytes: Buffer = Buffer.alloc(0);

  add(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.bytes += chunk.length;
    if (this.headLength < EDGE_BYTES) {
      // Copied: a slice would keep the whole (possibly large) chunk alive.
      const part = Buffer.from(chunk.subarray(0, EDGE_BYTES - this.headLength));
      this.headParts.push(part);
      this.headLength += part.length;
    }
    this.tailBytes =
      chunk.length >= EDGE_BYTES
        ? Buffer.from(chunk.subarray(chunk.length - EDGE_BYTES))
        : Buffer.from(Buffer.concat([this.tailBytes, chunk]).subarray(-EDGE_BYTES));
  }

  get head(): string {
    return Buffer.concat(this.headParts).toString('utf8');
  }

  get tail(): string {
    return this.tailBytes.toString('utf8');
  }
}

/**
 * Bytes kept whole up to `limit`; past it, only a `ByteWindow` of them. Within the limit, which is
 * nearly always, the chunks are only held (no copy per chunk, as the window's edges would take):
 * the window is made from them when the limit is passed, or when it is asked for.
 */
export class BoundedBytes {
  private parts: Buffer[] = [];
  private length = 0;
  /** The window of the bytes once they passed the limit, kept up as they stream. */
  private overWindow: ByteWindow | undefined;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** True once the bytes added passed the limit; the whole content is gone from then on. */
  get overflowed(): boolean {
    return this.overWindow !== undefined;
  }

  get bytes(): number {
    return this.length;
  }

  /** The first and last bytes added, and how many there were. */
  get window(): ByteWindow {
    return this.overWindow ?? windowOf(this.parts);
  }

  /** Adds a chunk; returns true if this chunk is the one that passed the limit. */
  add(chunk: Buffer): boolean {
    if (chunk.length === 0) return false;
    this.length += chunk.length;
    if (this.overWindow) {
      this.overWindow.add(chunk);
      return false;
    }
    if (this.length > this.limit) {
      this.parts.push(chunk);
      this.overWindow = windowOf(this.parts);
      this.parts = [];
      return true;
    }
    this.parts.push(chunk);
    return false;
  }

  /** The whole content (the chunk itself when it came in one); only meaningful while not overflowed. */
  whole(): Buffer {
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }
}

function windowOf(parts: readonly Buffer[]): ByteWindow {
  const window = new ByteWindow();
  for (const part of parts) window.add(part);
  return window;
}
