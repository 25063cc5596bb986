/**
 * The turn's W3C trace context on every HTTP request made to an MCP server within it (the
 * `traceparent` and `tracestate` headers), so a server that traces joins the turn's trace; `_meta`
 * carries it too (call-tool.ts), for servers that read it there and for stdio.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { currentTraceContext } from '../../core/trace-context.ts';

export function withTraceHeaders(fetch: FetchLike): FetchLike {
  return (url, init) => {
    const context = currentTraceContext();
    if (!context) return fetch(url, init);
    const headers = new Headers(init?.headers);
    headers.set('traceparent', context.traceparent);
    if (context.tracestate) headers.set('tracestate', context.tracestate);
    return fetch(url, { ...init, headers });
  };
}
