/**
 * The telemetry port: what the agent's telemetry (lib/extensions/telemetry/) asks of a tracing
 * and metrics SDK. Small on purpose, so the core and the extension stay free of any SDK: spans are
 * parented through W3C trace contexts (lib/core/trace-context.ts), never through SDK objects, and
 * lib/adapters/otel/ implements it with OpenTelemetry.
 */
import type { TraceContext } from '../trace-context.ts';

export type TelemetryValue = string | number | boolean | string[];
/** Attributes whose value is undefined are left out. */
export type TelemetryAttributes = Record<string, TelemetryValue | undefined>;

export interface SpanOptions {
  /** The span's parent: the caller's context, or a span of the service. None: a new trace. */
  parent?: TraceContext;
  /** `client` for a call that leaves the process (a model call), `internal` otherwise. */
  kind?: 'internal' | 'client';
  attributes?: TelemetryAttributes;
}

export interface TelemetrySpan {
  /** This span's own context: what its children and the servers it calls are given. */
  readonly context: TraceContext;
  setAttributes(attributes: TelemetryAttributes): void;
  /** Marks the span failed: `errorType` is error.type (a stable code), the message its status. */
  fail(errorType: string, message?: string): void;
  end(): void;
}

export interface TelemetryTracer {
  startSpan(name: string, options?: SpanOptions): TelemetrySpan;
}

/** The GenAI conventions' client metrics. */
export interface GenAiMetrics {
  /** gen_ai.client.token.usage: tokens of one operation, with gen_ai.token.type input or output. */
  recordTokenUsage(tokens: number, attributes: TelemetryAttributes): void;
  /** gen_ai.client.operation.duration, in seconds. */
  recordOperationDuration(seconds: number, attributes: TelemetryAttributes): void;
}

export interface Telemetry {
  tracer: TelemetryTracer;
  metrics: GenAiMetrics;
  /**
   * Sends what is buffered: called when a turn ends, because a Lambda function is frozen between
   * invocations and a span still in a buffer may never leave.
   */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}
