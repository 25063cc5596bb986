/**
 * The `fetch` given to the SDK's Streamable HTTP and SSE client transports: every response body
 * the transport will read messages from is bounded as it arrives (event-stream.ts, json-body.ts).
 *
 * The requests an oversize response may answer are read from the bodies the transport POSTs. A
 * POST's own response (Streamable HTTP) answers only that POST's requests; the long-lived GET
 * stream (a resumed Streamable HTTP stream, every answer of legacy SSE) answers any request of
 * the connection still waiting.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { boundEventStream } from './event-stream.ts';
import { boundJsonBody } from './json-body.ts';
import { PendingRequests } from './pending.ts';
import type { BoundedReadingOptions } from './reading.ts';

/** One per transport: its requests are tracked per connection. */
export function createBoundedFetch(options: BoundedReadingOptions): FetchLike {
  const connection = new PendingRequests();
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const own = new PendingRequests(connection);
    if (method === 'POST') {
      const sent = readSentMessages(init?.body);
      connection.sent(sent);
      own.sent(sent);
    }
    const response = await fetch(url, init);
    if (!response.ok || !response.body) return response;
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType === 'text/event-stream') {
      const post = method === 'POST';
      return withBody(response, boundEventStream(response.body, { ...options, pending: post ? own : connection, exclusive: post }));
    }
    if (mediaType === 'application/json' && own.size > 0) {
      return withBody(response, boundJsonBody(response.body, { ...options, pending: own }));
    }
    return response;
  };
}

/** The transports POST one JSON-RPC message (or a batch) as a JSON string. */
function readSentMessages(body: RequestInit['body']): JSONRPCMessage[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.filter((message): message is JSONRPCMessage => typeof message === 'object' && message !== null);
  } catch {
    return [];
  }
}

/** The same response with a bounded body; the length and encoding no longer describe it. */
function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  const bounded = new Response(body, { status: response.status, statusText: response.statusText, headers });
  // The SSE client reconnects to the URL a redirect led to; a new Response would forget it.
  Object.defineProperties(bounded, { url: { value: response.url }, redirected: { value: response.redirected } });
  return bounded;
}
