/**
 * The `eventsource` package (v5, the WHATWG EventSource for Node) as a client of a turn route: its
 * `fetch` option POSTs the JSON body on every connection, reconnects included, as chat clients do.
 * Each connection is recorded (the Last-Event-ID it sent, the status it got); `drop()` breaks the
 * current one as a network would, so the EventSource reconnects by itself.
 */
import { EventSource, type ErrorEvent } from 'eventsource';

export interface Connection {
  lastEventId: string | undefined;
  status: number | undefined;
}

export interface EventSourceEvent {
  event: string;
  id: string;
  data: unknown;
  /** Which connection brought it (0 for the first). */
  connection: number;
}

export interface PostedEventSource {
  source: EventSource;
  connections: Connection[];
  events: EventSourceEvent[];
  /** Breaks the current connection (the server sees it close); the EventSource reconnects. */
  drop(): void;
  /** Resolves with the error that closed the EventSource for good (a 204 says `code: 204`). */
  closed: Promise<ErrorEvent>;
}

/** Opens an EventSource on a POST route; `names` are the events it listens for. */
export function postEventSource(url: string, body: unknown, names: readonly string[], onEvent?: (event: EventSourceEvent) => void): PostedEventSource {
  const connections: Connection[] = [];
  const events: EventSourceEvent[] = [];
  let breakCurrent: (() => void) | undefined;
  const source = new EventSource(url, {
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      const connection: Connection = { lastEventId: headers.get('last-event-id') ?? undefined, status: undefined };
      connections.push(connection);
      headers.set('content-type', 'application/json');
      const network = new AbortController();
      init?.signal?.addEventListener('abort', () => network.abort());
      const response = await fetch(input, { ...init, method: 'POST', headers, body: JSON.stringify(body), signal: network.signal });
      connection.status = response.status;
      if (!response.body) return response;
      // The body as the EventSource reads it, which a drop breaks with a network error (an abort
      // would be taken for the client's own close, and not reconnected).
      let feed: ReadableStreamDefaultController<Uint8Array>;
      const reader = response.body.getReader();
      const broken = new ReadableStream<Uint8Array>({
        start: (controller) => void (feed = controller),
        pull: async (controller) => {
          try {
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          } catch {
            // The drop below aborted the read; the stream already errored.
          }
        },
      });
      breakCurrent = () => {
        feed.error(new TypeError('connection dropped'));
        network.abort();
      };
      return new Response(broken, { status: response.status, headers: response.headers });
    },
  });
  const closed = new Promise<ErrorEvent>((resolve) => {
    source.addEventListener('error', (error) => {
      if (source.readyState === EventSource.CLOSED) resolve(error);
    });
  });
  for (const name of names) {
    source.addEventListener(name, (message) => {
      // The stream's own `error` event shares its name with the EventSource's connection errors, which carry no data.
      if (!(message instanceof MessageEvent)) return;
      const event = { event: name, id: message.lastEventId, data: JSON.parse(message.data), connection: connections.length - 1 };
      events.push(event);
      onEvent?.(event);
    });
  }
  return { source, connections, events, drop: () => breakCurrent?.(), closed };
}
