/** Forwards a stdio server's stderr to the debug log, one entry per line. */
import type { Stream } from 'node:stream';
import type { Logger } from '../../core/logger.ts';

/** Long lines are cut: stderr is for diagnosis, not for carrying payloads into the log. */
const MAXIMUM_LINE_LENGTH = 500;

export function logStderrLines(stream: Stream, server: string, logger: Logger): void {
  let pending = '';
  stream.on('data', (chunk: Buffer | string) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) log(line);
    // A server that never writes a newline must not grow this buffer without bound.
    if (pending.length > MAXIMUM_LINE_LENGTH * 4) {
      log(pending);
      pending = '';
    }
  });
  stream.on('end', () => {
    if (pending) log(pending);
    pending = '';
  });
  function log(line: string): void {
    const trimmed = line.trimEnd();
    if (trimmed) logger.debug('mcp server stderr', { server, line: trimmed.slice(0, MAXIMUM_LINE_LENGTH) });
  }
}
