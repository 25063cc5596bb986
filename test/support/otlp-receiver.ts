/**
 * A local OTLP/HTTP receiver (JSON encoding, https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding):
 * takes what an exporter posts to /v1/traces and /v1/metrics, decodes it into plain spans and
 * metric points, and lets a test wait for what it expects, event-driven.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  serviceName: unknown;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  points: Array<{ attributes: Record<string, unknown>; count: number; sum: number }>;
}

export interface OtlpReceiver {
  /** The base URL to give OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  /** Paths of every request received (only /v1/traces and /v1/metrics are expected). */
  paths: string[];
  /** Resolves once `ready` holds of what has been received, checked after each request. */
  waitFor(ready: (receiver: OtlpReceiver) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

const valueOf = (value: AnyValue): unknown => {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
};
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const waiters = new Set<() => void>();
  const receiver: OtlpReceiver = {
    url: '',
    spans: [],
    metrics: [],
    paths: [],
    waitFor(ready, timeoutMs = 30_000) {
      if (ready(receiver)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver never got what was expected; spans: ${receiver.spans.map((span) => span.name).join(', ')}`));
        }, timeoutMs);
        const check = () => {
          if (!ready(receiver)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      receiver.paths.push(request.url ?? '');
      if (request.headers['content-type'] !== 'application/json') {
        response.writeHead(415).end();
        return;
      }
      const payload = JSON.parse(body);
      if (request.url === '/v1/traces') {
        for (const resourceSpans of payload.resourceSpans ?? []) {
          const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'];
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              receiver.spans.push({ traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId || undefined, name: span.name, kind: span.kind, attributes: attributesOf(span.attributes), status: span.status ?? {}, serviceName });
            }
          }
        }
      }
      if (request.url === '/v1/metrics') {
        for (const resourceMetrics of payload.resourceMetrics ?? []) {
          for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
            for (const metric of scopeMetrics.metrics ?? []) {
              const points = (metric.histogram?.dataPoints ?? []).map((point: { attributes?: KeyValue[]; count: string | number; sum: number }) => ({ attributes: attributesOf(point.attributes), count: Number(point.count), sum: point.sum }));
              receiver.metrics.push({ name: metric.name, unit: metric.unit, points });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const waiter of [...waiters]) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

