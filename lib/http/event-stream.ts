import { PassThrough } from 'node:stream';
import type { HttpResponse } from './types.ts';

/**
 * The body of an event-stream response: text written as the turn runs. `settled` resolves once the
 * turn has ended (stored, or failed) and the last event is written: a Lambda must not return
 * before then, or a client that went away would take the turn down with it.
 */
export class EventStreamBody extends PassThrough {
  settled: Promise<void> = Promise.resolve();
}

export interface EventStreamResponse {
  statusCode: 200;
  headers: Record<string, string>;
  body: EventStreamBody;
}

/** What an entry that can stream sends: a whole response, or an event stream written as the turn runs. */
export type StreamingHttpResponse = HttpResponse | EventStreamResponse;

export function isEventStreamResponse(response: StreamingHttpResponse): response is EventStreamResponse {
  return typeof response.body !== 'string';
}

/** An event stream, collected: the same bytes, all at once once the turn has ended (an entry with no stream to write to). */
export async function collectResponse(response: StreamingHttpResponse): Promise<HttpResponse> {
  if (!isEventStreamResponse(response)) return response;
  let body = '';
  for await (const piece of response.body) body += String(piece);
  return { statusCode: response.statusCode, headers: response.headers, body };
}
