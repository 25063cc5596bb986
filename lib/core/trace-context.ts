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

/** version-traceid-parentid-flags; an all-zero trace or parent id is invalid (W3C §3.2.2). */
const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The context a caller sent, or undefined when it sent none or one that is malformed (ignored, as W3C says). */
export function readTraceContext(traceparent: unknown, tracestate?: unknown): TraceContext | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const value = traceparent.trim().toLowerCase();
  if (!TRACEPARENT.test(value) || value.startsWith('ff')) return undefined;
  return typeof tracestate === 'string' && tracestate.trim() ? { traceparent: value, tracestate: tracestate.trim() } : { traceparent: value };
}

export function withTraceContext<T>(context: TraceContext | undefined, work: () => T): T {
  return context ? storage.run(context, work) : work();
}

export function currentTraceContext(): TraceContext | undefined {
  return storage.getStore();
}
