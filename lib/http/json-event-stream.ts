import type { Logger } from '../core/logger.ts';
import type { TurnResult } from '../core/turn.ts';
import type { LoopEvent } from '../agent/loop/loop-events.ts';
import { EventStreamBody, type EventStreamResponse } from './event-stream.ts';
import { EVENT_STREAM_HEADERS, encodeComment } from './sse.ts';
import type { HttpResponse } from './types.ts';

/**
 * A protocol whose stream is unnamed `data: <JSON>` events (the AI SDK's UI message stream, AG-UI):
 * what it sends for each loop event, for the turn's end, and for a turn that failed once the stream
 * had begun. Each returns the values to send, in order (none is fine).
 */
export interface JsonEventProtocol {
  headers?: Record<string, string>;
  event(event: LoopEvent): unknown[];
  result(result: TurnResult): unknown[];
  failure(response: HttpResponse): unknown[];
  /** Written after the turn's last value (not after a failure): the AI SDK's `[DONE]`. */
  done?: string;
}

interface JsonEventStreamOptions {
  logger: Logger;
  /** The door's error shape, for a turn that fails before anything is sent (it keeps its status). */
  errorResponse(error: unknown, logger: Logger): HttpResponse;
  /** A comment this often while the turn runs (none when absent: the buffered entry). */
  heartbeatMs?: number;
}

/**
 * Runs a turn for a client of such a protocol. As with the native stream, nothing is promised
 * before the protocol has something to send, so a busy conversation (409) or a missing model (503)
 * keeps its status and error body:
 *
 *   turn fails before any value   -> the door's JSON error response, status and all
 *   first value (or the result of
 *   a replayed turn)              -> 200 event stream: values as the turn runs, heartbeat comments,
 *                                    the result's values, then `done`
 *   failure after that, the turn
 *   not stored                    -> the protocol's failure values, and the stream ends
 */
export function streamJsonEvents(run: (onEvent: (event: LoopEvent) => void) => Promise<TurnResult>, protocol: JsonEventProtocol, options: JsonEventStreamOptions): Promise<HttpResponse | EventStreamResponse> {
  const { logger } = options;
  const body = new EventStreamBody();
  let heartbeat: NodeJS.Timeout | undefined;
  let ended = false;
  body.on('close', () => {
    if (!ended) logger.warn('event stream closed by the client before the turn ended; the turn continues');
  });
  const write = (text: string) => {
    if (!ended && !body.destroyed) body.write(text);
  };

  return new Promise((respond) => {
    let committed = false;
    const commit = () => {
      if (committed) return;
      committed = true;
      if (options.heartbeatMs !== undefined) heartbeat = setInterval(() => write(encodeComment('heartbeat')), options.heartbeatMs);
      respond({ statusCode: 200, headers: { ...EVENT_STREAM_HEADERS, ...protocol.headers }, body });
    };
    const send = (values: unknown[]) => {
      if (values.length === 0) return;
      commit();
      for (const value of values) write(`data: ${JSON.stringify(value)}\n\n`);
    };
    // Called inside the loop: whatever goes wrong with the stream must not break the turn.
    const onEvent = (event: LoopEvent) => {
      try {
        send(protocol.event(event));
      } catch (error) {
        logger.error('could not stream a loop event', { event: event.type, error: String(error) });
      }
    };

    body.settled = run(onEvent)
      .then(
        (result) => {
          send(protocol.result(result));
          if (protocol.done !== undefined) write(protocol.done);
        },
        (error: unknown) => {
          const failure = options.errorResponse(error, logger);
          if (!committed) {
            committed = true;
            respond(failure);
            return;
          }
          send(protocol.failure(failure));
        },
      )
      .catch((error: unknown) => logger.error('could not write the end of an event stream', { error: String(error) }))
      .finally(() => {
        clearInterval(heartbeat);
        ended = true;
        if (!body.destroyed) body.end();
      });
  });
}
