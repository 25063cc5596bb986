/**
 * Splits a byte stream into lines without ever joining a line: the content of each line reaches
 * the sink as the pieces (`segment`) that arrived, then `lineEnd`. Whoever listens decides how much
 * of a line to keep, so a 20 MB line costs no more memory than a short one.
 *
 * `lf`: lines end at `\n` (stdio, newline-delimited JSON). `sse`: at `\r\n`, `\n` or `\r`, as the
 * Server-Sent Events format says, including a `\r\n` split between two chunks.
 */
interface LineSink {
  segment(bytes: Buffer): void;
  lineEnd(): void;
}

const LF = 0x0a;
const CR = 0x0d;

export interface LineSplitter {
  push(chunk: Buffer): void;
}

export function splitLines(endings: 'lf' | 'sse', sink: LineSink): LineSplitter {
  /** The previous chunk ended with `\r`: a `\n` opening this one belongs to that line ending. */
  let afterCr = false;
  return {
    push(chunk: Buffer): void {
      let start = 0;
      if (afterCr && chunk.length > 0) {
        afterCr = false;
        if (chunk[0] === LF) start = 1;
      }
      let nextLf = -2;
      let nextCr = endings === 'sse' ? -2 : -1;
      while (start < chunk.length) {
        // Each search result is reused until the position passes it: one pass over the chunk.
        if (nextLf !== -1 && nextLf < start) nextLf = chunk.indexOf(LF, start);
        if (nextCr !== -1 && nextCr < start) nextCr = chunk.indexOf(CR, start);
        const end = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextLf, nextCr);
        if (end === -1) {
          sink.segment(chunk.subarray(start));
          return;
        }
        if (end > start) sink.segment(chunk.subarray(start, end));
        sink.lineEnd();
        start = end + 1;
        if (chunk[end] === CR) {
          if (start === chunk.length) afterCr = true;
          else if (chunk[start] === LF) start++;
        }
      }
    },
  };
}
