import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { TurnMetrics } from '../../core/ports/metrics.ts';

/**
 * Turn metrics as CloudWatch embedded metrics. Dimensions stay at the service level (plus the stop
 * reason, a handful of values) so the metric count does not grow with conversations or tools.
 */
export function powertoolsTurnMetrics(metrics: Metrics): TurnMetrics {
  return {
    turnCompleted(result, durationMs) {
      const single = metrics.singleMetric();
      single.addDimension('stopReason', result.stopReason);
      single.addMetric('Turns', MetricUnit.Count, 1);
      metrics.addMetric('Rounds', MetricUnit.Count, result.rounds);
      metrics.addMetric('ToolCalls', MetricUnit.Count, result.toolCalls.length);
      metrics.addMetric('ToolErrors', MetricUnit.Count, result.toolCalls.filter((call) => !call.ok).length);
      metrics.addMetric('PromptTokens', MetricUnit.Count, result.usage.promptTokens);
      metrics.addMetric('CompletionTokens', MetricUnit.Count, result.usage.completionTokens);
      metrics.addMetric('TurnLatency', MetricUnit.Milliseconds, durationMs);
    },
    limitReached(limit, outcome) {
      // A spent budget or an owner at its turn limit: refused before any model call, or a turn stopped.
      const single = metrics.singleMetric();
      single.addDimension('limit', limit);
      single.addDimension('outcome', outcome);
      single.addMetric('LimitReached', MetricUnit.Count, 1);
    },
    turnFailed(code, durationMs) {
      const single = metrics.singleMetric();
      single.addDimension('errorCode', code);
      single.addMetric('TurnFailures', MetricUnit.Count, 1);
      metrics.addMetric('TurnLatency', MetricUnit.Milliseconds, durationMs);
    },
  };
}
