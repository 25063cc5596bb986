import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The W3C trace context (https://www.w3.org/TR/trace-context/) of the work under way: the caller's
 * (a `traceparent` header, SQS message attribute or EventBridge detail field), or the span the
 * service opened for it when telemetry is on. Kept per async call chain, as the log context is, so
 * an MCP call made deep inside a turn passes it on (a header over HTTP, `_meta` in the request)
 * without every layer in between carrying it, and one trace crosses the service.
 */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

const storage = new AsyncLocalStorage<TraceContext>();

/**
 * version 00, trace id, parent id, flags, in lower-case hex; an all-zero trace or parent id is
 * invalid (W3C §3.2.2). A caller that sends anything else is treated as one that sent nothing.
 */
const TRACEPARENT = /^00-(?!0{32})[\da-f]{32}-(?!0{16})[\da-f]{16}-[\da-f]{2}$/;
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/** The context a caller sent, or undefined when it sent none or a malformed one (ignored, as W3C says). */
export function readTraceContext(traceparent: unknown, tracestate?: unknown): TraceContext | undefined {
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return undefined;
  // Passed on as a header: printable ASCII only (a queue message could carry a line break), 512 at most.
  return typeof tracestate === 'string' && TRACESTATE.test(tracestate) ? { traceparent, tracestate } : { traceparent };
}

export function withTraceContext<T>(context: TraceContext | undefined, work: () => T): T {
  return context ? storage.run(context, work) : work();
}

export function currentTraceContext(): TraceContext | undefined {
  return storage.getStore();
}
