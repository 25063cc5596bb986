/** The telemetry port's tracer on an OpenTelemetry SDK tracer: spans parented by W3C trace contexts. */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import type { TelemetryAttributes, TelemetrySpan, TelemetryTracer } from '../../core/ports/telemetry.ts';
import type { TraceContext } from '../../core/trace-context.ts';

export function otelTracer(tracer: Tracer): TelemetryTracer {
  return {
    startSpan(name, options = {}) {
      const parent = options.parent ? parentContext(options.parent) : ROOT_CONTEXT;
      const span = tracer.startSpan(name, { kind: options.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: defined(options.attributes) }, parent);
      const spanContext = span.spanContext();
      const context: TraceContext = {
        traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${spanContext.traceFlags.toString(16).padStart(2, '0')}`,
        ...(options.parent?.tracestate ? { tracestate: options.parent.tracestate } : {}),
      };
      const handle: TelemetrySpan = {
        context,
        setAttributes: (attributes) => void span.setAttributes(defined(attributes)),
        fail: (errorType, message) => {
          span.setAttribute('error.type', errorType);
          span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
        },
        end: () => span.end(),
      };
      return handle;
    },
  };
}

/** An SDK context whose active span is the remote (or earlier) span a W3C traceparent names. */
function parentContext(parent: TraceContext) {
  const [, traceId, spanId, flags] = parent.traceparent.split('-');
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: traceId!, spanId: spanId!, traceFlags: Number.parseInt(flags!, 16) & 1, isRemote: true });
}

function defined(attributes: TelemetryAttributes | undefined): Attributes {
  const kept: Attributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) if (value !== undefined) kept[name] = value;
  return kept;
}
