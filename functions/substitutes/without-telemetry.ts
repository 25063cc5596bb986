/**
 * Stands in for lib/telemetry.ts (`#telemetry`) in the Lambda bundles of a stack without telemetry
 * (infra/bundling.ts, functionSubstitutes): the OpenTelemetry SDK, its exporters and the spans' code
 * (about 150 KB minified) stay out of the bundle. The stack sets OTEL_EXPORTER_OTLP_ENDPOINT only
 * on functions it bundles with telemetry (docs/observability.md).
 */
export const loadTelemetry = async (): Promise<undefined> => undefined;
