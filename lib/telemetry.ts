/**
 * Telemetry for an agent, or none (`#telemetry` in package.json): OpenTelemetry when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, nothing at all when it is not. The SDK is imported only then,
 * so a service without telemetry never loads it; a Lambda bundle built without telemetry gets
 * functions/substitutes/without-telemetry.ts in place of this file (infra/bundling.ts), so the SDK
 * costs its bundle nothing either.
 */
import type { AgentConfig } from './config/load.ts';
import { readTelemetrySettings, type Environment } from './config/environment.ts';
import { instrumentation, type AgentInstrumentation } from './extensions/telemetry/instrumentation.ts';

export async function loadTelemetry(config: AgentConfig, environment: Environment): Promise<AgentInstrumentation | undefined> {
  const settings = readTelemetrySettings(environment);
  if (!settings) return undefined;
  const { startOtel } = await import('./adapters/otel/start.ts');
  return instrumentation(startOtel(settings), {
    agentName: settings.serviceName,
    model: { provider: config.model.provider, name: config.model.name, ...(config.model.baseURL ? { baseURL: config.model.baseURL } : {}) },
    captureContent: config.telemetry.captureContent,
  });
}
