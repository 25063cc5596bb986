/**
 * The `fetch` given to the SDK's Streamable HTTP and SSE client transports: every response body
 * the transport will read messages from is bounded as it arrives (event-stream.ts, json-body.ts).
 *
 * The requests an oversize response may answer are read from the bodies the transport POSTs. A
 * POST's own response (Streamable HTTP) answers only that POST's requests; the long-lived GET
 * stream (a resumed Streamable HTTP stream, every answer of legacy SSE) answers any request of
 * the connection still waiting. It also sees when a stream that owes answers ends for good, which
 * the SDK's transports never tell their requests (they wait out their timeouts).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { boundEventStream } from './event-stream.ts';
import { boundJsonBody } from './json-body.ts';
import { PendingRequests } from './pending.ts';
import type { BoundedReadingOptions } from './reading.ts';

interface BoundedFetchOptions extends BoundedReadingOptions {
  /** Legacy HTTP+SSE: its one GET stream carries every answer, and ends with the session. */
  legacySse?: boolean;
  /**
   * The connection can no longer deliver answers it owes (a server that died mid-call): the caller
   * closes it, which fails its waiting calls at once instead of at their timeouts.
   */
  onLost(reason: string): void;
}

/**
 * One per transport: its requests are tracked per connection.
 *
 *   POST stream ends, its requests unanswered ─┬─ no event ids: nothing can bring the answers ─▶ lost
 *                                              └─ event ids: the SDK resumes it (GET with
 *                                                 Last-Event-ID) ─┬─ refused or unreachable ─▶ lost
 *                                                                 └─ answered there ─▶ as usual
 *   legacy SSE: the GET stream ends ─▶ lost (the server's session is gone with it)
 */
export function createBoundedFetch(options: BoundedFetchOptions): FetchLike {
  const connection = new PendingRequests();
  /** Requests whose POST stream ended before their answers, while the SDK resumes it. */
  const stranded = new Set<RequestId>();
  const lostIfStranded = (reason: string) => {
    for (const id of stranded) if (!connection.has(id)) stranded.delete(id);
    if (stranded.size > 0) options.onLost(reason);
  };
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const own = new PendingRequests(connection);
    if (method === 'POST') {
      const sent = readSentMessages(init?.body);
      connection.sent(sent);
      own.sent(sent);
    }
    const resuming = method === 'GET' && new Headers(init?.headers).has('last-event-id');
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      if (resuming) lostIfStranded('the server could not be reached to resume a response stream');
      throw error;
    }
    if (resuming && !response.ok) lostIfStranded(`the server refused to resume a response stream (HTTP ${response.status})`);
    if (!response.ok || !response.body) return response;
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType === 'text/event-stream') {
      const post = method === 'POST';
      const onEnd = (ending: { broken: boolean; resumable: boolean }) => {
        if (options.legacySse && !post) return options.onLost(`the server ${ending.broken ? 'broke off' : 'closed'} its event stream`);
        if (!post || own.size === 0) return;
        if (ending.resumable) for (const id of own.all()) stranded.add(id);
        else options.onLost(`the server ${ending.broken ? 'broke off' : 'closed'} a response stream before answering`);
      };
      return withBody(response, boundEventStream(response.body, { ...options, pending: post ? own : connection, exclusive: post, onEnd }));
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
