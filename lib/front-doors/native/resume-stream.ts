import type { Agent, StoredTurn } from '../../agent/agent-api.ts';
import { InputError, NotFoundError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { ConversationKey } from '../../core/ports/conversation-store.ts';
import { errorResponse } from '../../http/errors.ts';
import { EventStreamBody, type EventStreamResponse } from '../../http/event-stream.ts';
import type { RouteMatch } from './routes.ts';
import { EVENT_STREAM_HEADERS, RECONNECT_MS, encodeComment, encodeJsonEvent, encodeRetry } from '../../http/sse.ts';
import { finalEventData } from '../../http/sse-events.ts';
import { formatStreamId, parseStreamId, requestTag, type StreamId, type StreamPosition } from './stream-ids.ts';
import { replayAfter } from './turn-replay.ts';
import type { HttpRequest, HttpResponse } from '../../http/types.ts';

interface ResumeOptions {
  agent: Agent;
  logger: Logger;
  heartbeatMs: number;
  /** How often a running turn's record is read again while the stream follows it. */
  pollMs?: number;
}

/** About one read a second while a resumed turn runs: its next events come at most this late. */
const POLL_MS = 1_000;
/** A resumed stream closes this long before the invocation's deadline; the client reconnects and resumes again. */
const DEADLINE_MARGIN_MS = 2_000;

/** The Last-Event-ID a request carries, if any (an EventSource sends none while it has no id). */
export function lastEventIdOf(request: HttpRequest): string | undefined {
  const value = request.headers['last-event-id']?.trim();
  return value ? value : undefined;
}

/**
 * A turn route's request that carries Last-Event-ID: a client resuming a turn's stream, whatever
 * its body says. It never starts a turn:
 *
 *   an id this service did not hand out, or of another conversation than the path's -> 400 invalid_last_event_id
 *   a turn the caller does not have (another owner's, or never stored)              -> 404 turn_not_found
 *   the id of the stream's last event (turn-end, error)                             -> 204: an EventSource stops
 *   otherwise -> 200 event stream: the turn's events after that id, rebuilt from its record, then
 *                each new one as the record shows it (read again every pollMs) while the turn
 *                runs, with heartbeats, ending with turn-end or error
 */
export async function resumeStream(request: HttpRequest, match: RouteMatch, lastEventId: string, options: ResumeOptions): Promise<HttpResponse | EventStreamResponse> {
  try {
    const id = parseStreamId(lastEventId);
    if (match.conversationId !== undefined && match.conversationId !== id.conversationId) {
      throw new InputError('invalid_last_event_id', `Last-Event-ID names conversation "${id.conversationId}", not "${match.conversationId}" of this path: send the last event id of this conversation's stream, or no Last-Event-ID to start a turn. No turn ran for this request.`);
    }
    const key: ConversationKey = { conversationId: id.conversationId, ...(request.owner ? { owner: request.owner } : {}) };
    const stored = ofTheStream(await options.agent.readTurn(key, id.turn), id);
    if (!stored) throw turnNotFound(id);
    if (id.position.kind === 'end') return { statusCode: 204, headers: {}, body: '' };
    return followTurn(key, id, stored, request.deadlineAt, options);
  } catch (error) {
    return errorResponse(error, options.logger);
  }
}

/** The turn, if it is the one the id names: another turn may have taken its number after it was given back unstored. */
const ofTheStream = (stored: StoredTurn | undefined, id: StreamId): StoredTurn | undefined =>
  stored?.requestIds.some((requestId) => requestTag(requestId) === id.tag) ? stored : undefined;

const turnNotFound = (id: StreamId) =>
  new NotFoundError('turn_not_found', `Turn ${id.turn} of conversation "${id.conversationId}", which Last-Event-ID names, is not stored for this caller: it failed before anything was kept (nothing was carried out), or the conversation is not yours. Send the message again without Last-Event-ID to ask again.`);

function followTurn(key: ConversationKey, id: StreamId, first: StoredTurn, deadlineAt: number | undefined, options: ResumeOptions): EventStreamResponse {
  const { agent, logger } = options;
  const body = new EventStreamBody();
  const write = (text: string) => {
    if (!body.destroyed && !body.writableEnded) body.write(text);
  };
  let last: StreamPosition = id.position;
  // Events without an id are rebuilt on every read; each is sent once.
  const sentWithoutId = new Set<string>();
  const send = (name: string, data: unknown, position: StreamPosition | undefined) => {
    if (!position) {
      const seen = `${name}\n${JSON.stringify(data)}`;
      if (sentWithoutId.has(seen)) return;
      sentWithoutId.add(seen);
    }
    write(encodeJsonEvent(name, position && formatStreamId({ ...id, position }), data));
    if (position) last = position;
  };
  const closed = new Promise<void>((resolve) => body.once('close', () => resolve()));
  write(encodeRetry(RECONNECT_MS));
  const heartbeat = setInterval(() => write(encodeComment('heartbeat')), options.heartbeatMs);

  const follow = async () => {
    let stored: StoredTurn | undefined = first;
    for (;;) {
      if (!stored) {
        const final = finalEventData({ failure: errorResponse(turnNotFound(id), logger) });
        send(final.name, final.data, { kind: 'end' });
        return;
      }
      const { events, ended } = replayAfter(stored, last);
      for (const event of events) send(event.name, event.data, event.position);
      if (ended || body.destroyed) return;
      // Out of time here: the stream closes without an end, and the client resumes it in another invocation.
      if (deadlineAt !== undefined && Date.now() + (options.pollMs ?? POLL_MS) + DEADLINE_MARGIN_MS > deadlineAt) return;
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, options.pollMs ?? POLL_MS))]);
      if (body.destroyed) return;
      stored = ofTheStream(await agent.readTurn(key, id.turn), id);
    }
  };
  body.settled = follow()
    .catch((error: unknown) => {
      // No id: the turn may well go on, and a client that reconnects resumes from its last event.
      const final = finalEventData({ failure: errorResponse(error, logger) });
      write(encodeJsonEvent(final.name, undefined, final.data));
    })
    .finally(() => {
      clearInterval(heartbeat);
      if (!body.destroyed) body.end();
    });
  return { statusCode: 200, headers: { ...EVENT_STREAM_HEADERS }, body };
}
