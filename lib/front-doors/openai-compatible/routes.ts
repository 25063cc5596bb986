import { NotFoundError } from '../../core/errors.ts';
import { routeFor } from '../../http/route-method.ts';
import type { HttpRequest } from '../../http/types.ts';

type OpenAIRouteName = 'listModels' | 'retrieveModel' | 'chatCompletions';

interface OpenAIRouteMatch {
  route: OpenAIRouteName;
  /** GET /v1/models/{model}: the model asked for. */
  model?: string;
}

/** Everything under /v1 belongs to the OpenAI-compatible front door, and answers in its error shape. */
export function isOpenAICompatiblePath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

/**
 * A Chat Completions client asks for a stream in its body (`"stream": true`), not in Accept (the
 * OpenAI SDKs send `Accept: application/json` either way); its keep-alive comments hold the
 * connection open like the native stream's heartbeats.
 */
export function asksForCompletionStream(request: HttpRequest): boolean {
  if (request.method.toUpperCase() !== 'POST' || !isOpenAICompatiblePath(request.path) || !request.body) return false;
  try {
    return (JSON.parse(request.body) as { stream?: unknown } | null)?.stream === true;
  } catch {
    return false;
  }
}

const ROUTES: Array<{ pattern: RegExp; methods: Partial<Record<string, OpenAIRouteName>> }> = [
  { pattern: /^\/v1\/models$/, methods: { GET: 'listModels' } },
  { pattern: /^\/v1\/models\/([^/]+)$/, methods: { GET: 'retrieveModel' } },
  { pattern: /^\/v1\/chat\/completions$/, methods: { POST: 'chatCompletions' } },
];

export function matchOpenAIRoute(method: string, rawPath: string): OpenAIRouteMatch {
  const path = rawPath.replace(/\/+$/, '');
  for (const { pattern, methods } of ROUTES) {
    const found = pattern.exec(path);
    if (!found) continue;
    const route = routeFor(methods, method, path);
    return found[1] === undefined ? { route } : { route, model: safeDecode(found[1]) };
  }
  throw new NotFoundError('route_not_found', `There is no ${method} ${path}. The OpenAI-compatible API has GET /v1/models, GET /v1/models/{model} and POST /v1/chat/completions.`);
}

/** A model id that is not valid URL encoding cannot be ours: kept as sent, so it answers 404. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
