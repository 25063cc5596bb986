/**
 * The GenAI conventions' client metrics as OpenTelemetry histograms, with the bucket boundaries the
 * conventions advise (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/).
 */
import type { Attributes, Meter } from '@opentelemetry/api';
import type { GenAiMetrics, TelemetryAttributes } from '../../core/ports/telemetry.ts';

const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

export function genAiMetrics(meter: Meter): GenAiMetrics {
  const tokenUsage = meter.createHistogram('gen_ai.client.token.usage', {
    description: 'Number of input and output tokens used',
    unit: '{token}',
    advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
  });
  const duration = meter.createHistogram('gen_ai.client.operation.duration', {
    description: 'GenAI operation duration',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  return {
    recordTokenUsage: (tokens, attributes) => tokenUsage.record(tokens, defined(attributes)),
    recordOperationDuration: (seconds, attributes) => duration.record(seconds, defined(attributes)),
  };
}

function defined(attributes: TelemetryAttributes): Attributes {
  const kept: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) kept[name] = value;
  return kept;
}
