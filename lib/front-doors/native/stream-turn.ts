import type { Logger } from '../../core/logger.ts';
import type { Agent } from '../../agent/agent-api.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import { errorResponse } from '../../http/errors.ts';
import { EventStreamBody, type EventStreamResponse } from '../../http/event-stream.ts';
import { livePositions } from './live-positions.ts';
import { EVENT_STREAM_HEADERS, RECONNECT_MS, encodeComment, encodeJsonEvent, encodeRetry } from '../../http/sse.ts';
import { finalEventData, loopEventData } from '../../http/sse-events.ts';
import { formatStreamId, requestTag, type StreamPosition } from './stream-ids.ts';
import type { TurnCall } from './turn-call.ts';
import type { HttpResponse } from '../../http/types.ts';

const END: StreamPosition = { kind: 'end' };

interface StreamTurnOptions {
  agent: Agent;
  logger: Logger;
  heartbeatMs: number;
}

/**
 * Runs one turn for a client that asked for Server-Sent Events. Nothing is promised before the turn
 * really starts, so a busy conversation (409) or a missing model (503) gets its usual JSON answer:
 *
 *   turn fails before any loop event   -> the JSON error response, status and all
 *   first loop event (round-start),
 *   or the result (a replayed turn)    -> 200 event stream: `retry:`, loop events as they happen, a
 *                                         heartbeat comment every heartbeatMs, then `turn-end` or `error`
 *
 * Events that the stored turn can give again carry ids naming the turn (stream-ids.ts),
 * so a client that reconnects with Last-Event-ID resumes this turn (resume-stream.ts).
 */
export function streamTurn(call: TurnCall, options: StreamTurnOptions): Promise<HttpResponse | EventStreamResponse> {
  const { agent, logger, heartbeatMs } = options;
  const body = new EventStreamBody();
  let heartbeat: NodeJS.Timeout | undefined;
  let ended = false;

  // A client that disconnects mid-turn costs only its own events; the turn runs on and is stored.
  body.on('close', () => {
    if (!ended) logger.warn('event stream closed by the client before the turn ended; the turn continues', { conversationId: call.conversationId, requestId: call.requestId });
  });
  const write = (text: string) => {
    if (!ended && !body.destroyed) body.write(text);
  };
  const positionOf = livePositions();
  // Known once the turn starts (turn-start), or from the result of a turn replayed whole.
  let turnOf: { conversationId: string; turn: number; tag: string } | undefined;
  const idAt = (position: StreamPosition | undefined) => (position && turnOf ? formatStreamId({ ...turnOf, position }) : undefined);
  const send = (name: string, data: unknown, position?: StreamPosition) => write(encodeJsonEvent(name, idAt(position), data));

  return new Promise((respond) => {
    let committed = false;
    const commit = () => {
      if (committed) return;
      committed = true;
      write(encodeRetry(RECONNECT_MS));
      heartbeat = setInterval(() => write(encodeComment('heartbeat')), heartbeatMs);
      respond({ statusCode: 200, headers: { ...EVENT_STREAM_HEADERS }, body });
    };
    // Called inside the loop: whatever goes wrong with the stream must not break the turn.
    const onEvent = (event: LoopEvent) => {
      try {
        if (event.type === 'turn-start') turnOf = { conversationId: event.conversationId, turn: event.turn, tag: requestTag(event.requestId) };
        const position = positionOf(event);
        const streamed = loopEventData(event);
        if (!streamed) return;
        commit();
        send(streamed.name, streamed.data, position);
      } catch (error) {
        logger.error('could not stream a loop event', { event: event.type, error: String(error) });
      }
    };

    body.settled = call
      .run(agent, onEvent)
      .then(
        (result) => {
          if (!turnOf && call.requestId !== undefined) turnOf = { conversationId: result.conversationId, turn: result.turn, tag: requestTag(call.requestId) };
          commit();
          const final = finalEventData({ result });
          send(final.name, final.data, END);
        },
        (error: unknown) => {
          const failure = errorResponse(error, logger);
          if (!committed) {
            committed = true;
            respond(failure);
            return;
          }
          const final = finalEventData({ failure });
          send(final.name, final.data, END);
        },
      )
      .catch((error: unknown) => logger.error('could not write the last event of a stream', { error: String(error) }))
      .finally(() => {
        clearInterval(heartbeat);
        ended = true;
        if (!body.destroyed) body.end();
      });
  });
}
