/**
 * Server-Sent Events for tests, parsed by eventsource-parser (the parser the `eventsource` package
 * and the AI SDKs use): a real HTTP client (fetch, the body read as it arrives), and a reader for
 * the bytes a streaming Lambda handler wrote (metadata prelude, 8 NUL bytes, then the body).
 */
import { createParser } from 'eventsource-parser';
import { isEventStreamResponse, type StreamingHttpResponse } from '../../lib/http/event-stream.ts';

export type ReceivedEvent = { kind: 'event'; event: string; id: string | undefined; data: unknown; at: number };
export type Received = ReceivedEvent | { kind: 'comment'; text: string; at: number };

export interface EventStreamReader {
  feed(text: string): void;
  /** Events and comments, in the order they arrived. */
  received: Received[];
  events: ReceivedEvent[];
}

/** Parses an event stream fed in pieces; every event's data is JSON in this API. */
export function eventStreamReader(onEvent?: (event: ReceivedEvent) => void): EventStreamReader {
  const received: Received[] = [];
  const events: ReceivedEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const event: ReceivedEvent = { kind: 'event', event: message.event ?? 'message', id: message.id, data: JSON.parse(message.data), at: Date.now() };
      received.push(event);
      events.push(event);
      onEvent?.(event);
    },
    onComment: (text) => received.push({ kind: 'comment', text, at: Date.now() }),
  });
  return { feed: (text) => parser.feed(text), received, events };
}

export interface SseExchange extends Omit<EventStreamReader, 'feed'> {
  status: number;
  headers: Headers;
  /** Set when the response was not an event stream: its parsed JSON body. */
  json?: unknown;
}

export interface SseRequestOptions {
  body: unknown;
  /** More request headers (a caller's identity, say). */
  headers?: Record<string, string>;
  /** Called on each event as it arrives. */
  onEvent?: (event: ReceivedEvent) => void;
  /** Aborting it hangs up; what arrived until then is returned. */
  signal?: AbortSignal;
}

/** POSTs JSON asking for an event stream and reads it to its end (or until the signal aborts). */
export async function postForEvents(url: string, options: SseRequestOptions): Promise<SseExchange> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...options.headers },
    body: JSON.stringify(options.body),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const reader = eventStreamReader(options.onEvent);
  const exchange: SseExchange = { status: response.status, headers: response.headers, received: reader.received, events: reader.events };
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    exchange.json = await response.json();
    return exchange;
  }
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body!) reader.feed(decoder.decode(chunk, { stream: true }));
  } catch (error) {
    if (!options.signal?.aborted) throw error;
  }
  return exchange;
}

/** The names of the events received, in order. */
export const eventNames = (exchange: { events: ReceivedEvent[] }): string[] => exchange.events.map((event) => event.event);

/** A streaming Lambda response as written: the metadata prelude (JSON before 8 NUL bytes) and the body. */
export function splitLambdaStream(bytes: Buffer): { prelude: { statusCode: number; headers: Record<string, string> }; body: string } {
  const delimiter = bytes.indexOf(Buffer.alloc(8));
  if (delimiter < 0) throw new Error(`no metadata prelude in the response stream: ${JSON.stringify(bytes.toString('utf8').slice(0, 200))}`);
  return { prelude: JSON.parse(bytes.subarray(0, delimiter).toString('utf8')), body: bytes.subarray(delimiter + 8).toString('utf8') };
}

/** Reads the contract's event-stream response (lib/http/event-stream.ts) to its end, and the turn behind it. */
export async function readEventStream(response: StreamingHttpResponse): Promise<EventStreamReader> {
  if (!isEventStreamResponse(response)) throw new Error(`expected an event stream, got ${response.statusCode} ${response.body}`);
  const reader = eventStreamReader();
  for await (const chunk of response.body) reader.feed(String(chunk));
  await response.body.settled;
  return reader;
}
