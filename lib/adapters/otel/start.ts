/**
 * OpenTelemetry, started only when OTEL_EXPORTER_OTLP_ENDPOINT is set (lib/telemetry.ts imports this
 * file on demand, so a service without telemetry never loads the SDK): traces and the GenAI metrics
 * exported as OTLP/HTTP with JSON bodies to <endpoint>/v1/traces and <endpoint>/v1/metrics.
 *
 * Spans are batched and every buffer is flushed when a turn ends (Telemetry.flush): a Lambda
 * function is frozen between invocations, so a periodic export alone could hold spans for minutes
 * or lose them with the container. No global provider or context manager is registered: the
 * service parents its spans itself (lib/core/trace-context.ts), and leaves the globals to the
 * embedding code.
 */
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Telemetry } from '../../core/ports/telemetry.ts';
import { genAiMetrics } from './metrics.ts';
import { otelTracer } from './tracer.ts';

const SCOPE = 'mcp-agent';
/**
 * The longest attribute value kept, in characters: only captured contents (telemetry.captureContent)
 * come near it, and a chat span's input holds the whole conversation as sent. Backends refuse or
 * cut far larger spans anyway (X-Ray takes 64 KB per segment document).
 */
const MAX_ATTRIBUTE_CHARS = 32_768;
/** How long a flush may hold a turn's end: a collector beside the function answers in milliseconds. */
const EXPORT_TIMEOUT_MS = 5_000;

/** Where to export (OTEL_EXPORTER_OTLP_ENDPOINT, without a trailing slash) and as which service. */
interface OtelOptions {
  endpoint: string;
  serviceName: string;
}

export function startOtel(settings: OtelOptions): Telemetry {
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName });
  const spans = new BatchSpanProcessor({
    exporter: new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces`, timeoutMillis: EXPORT_TIMEOUT_MS }),
    // Flushed at every turn's end; the timer only bounds how long a long turn's spans wait.
    scheduledDelayMillis: 5_000,
    exportTimeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const tracerProvider = new TracerProvider({ resource, spanProcessors: [spans], spanLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_CHARS } });
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: `${settings.endpoint}/v1/metrics`, timeoutMillis: EXPORT_TIMEOUT_MS, temporalityPreference: AggregationTemporality.DELTA }),
    exportIntervalMillis: 60_000,
    exportTimeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const meterProvider = new MeterProvider({ resource, readers: [reader] });
  return {
    tracer: otelTracer(tracerProvider.getTracer(SCOPE)),
    metrics: genAiMetrics(meterProvider.getMeter(SCOPE)),
    flush: async () => {
      await Promise.allSettled([tracerProvider.forceFlush(), meterProvider.forceFlush()]);
    },
    shutdown: async () => {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
