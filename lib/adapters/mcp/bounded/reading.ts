/** What every bounded reader is told, and the one log line each writes for a message it cut off. */
import type { Logger } from '../../../core/logger.ts';
import type { Verdict } from './oversize.ts';

export interface BoundedReadingOptions {
  /** `tools.maxResultBytes`: a message larger than this is dropped as it arrives. */
  maxResultBytes: number;
  /** The server's name, for the log. */
  server: string;
  logger: Logger;
}

/** Never the message's content: only sizes and what became of it. */
export function reportDropped(options: BoundedReadingOptions, receivedBytes: number, verdict: Exclude<Verdict, { wait: true }>): void {
  options.logger.warn('mcp message over tools.maxResultBytes cut off', {
    server: options.server,
    maxResultBytes: options.maxResultBytes,
    receivedBytes,
    ...('answer' in verdict ? { answeredRequest: verdict.answer.id } : { dropped: verdict.drop }),
  });
}
