import { readTraceContext } from '../core/trace-context.ts';
import type { HttpRequest } from './types.ts';

/** The caller's W3C trace context (the traceparent and tracestate headers), when it sent one: every front door passes it on. */
export const traceOf = (request: HttpRequest) => {
  const trace = readTraceContext(request.headers.traceparent, request.headers.tracestate);
  return trace ? { trace } : {};
};
