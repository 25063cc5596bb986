/**
 * The GenAI conventions' names for the configured model (https://opentelemetry.io/docs/specs/semconv/gen-ai/):
 * the same on every span and metric of a turn.
 */
import type { TelemetryAttributes } from '../../core/ports/telemetry.ts';

export interface ModelIdentity {
  /** model.provider of agent.yml. */
  provider: string;
  /** model.name (the request model). */
  name: string;
  /** The endpoint (model.baseURL), for server.address and server.port; none for Bedrock's SDK or the stand-in. */
  baseURL?: string;
}

/** gen_ai.provider.name: the conventions' well-known value where there is one. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = { openai: 'openai', bedrock: 'aws.bedrock' };

export function modelAttributes(model: ModelIdentity): TelemetryAttributes {
  const server = serverOf(model.baseURL);
  return {
    'gen_ai.provider.name': PROVIDER_NAMES[model.provider] ?? model.provider,
    'gen_ai.request.model': model.name,
    ...server,
  };
}

function serverOf(baseURL: string | undefined): TelemetryAttributes {
  if (!baseURL) return {};
  try {
    const url = new URL(baseURL);
    return { 'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return {};
  }
}
