import { NotFoundError } from '../../core/errors.ts';
import { routeFor } from '../../http/route-method.ts';

/** Where A2A clients look for an agent's card (the SDK's AGENT_CARD_PATH). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
/** The JSON-RPC endpoint the card names. */
export const JSON_RPC_PATH = '/a2a';

type A2ARoute = 'agentCard' | 'jsonRpc';

export function isA2APath(path: string): boolean {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === AGENT_CARD_PATH || trimmed === JSON_RPC_PATH;
}

export function matchA2ARoute(method: string, rawPath: string): A2ARoute {
  const path = rawPath.replace(/\/+$/, '');
  if (path === AGENT_CARD_PATH) return routeFor({ GET: 'agentCard' as const }, method, path);
  if (path === JSON_RPC_PATH) return routeFor({ POST: 'jsonRpc' as const }, method, path);
  throw new NotFoundError('route_not_found', `There is no ${method} ${path}. The A2A door has GET ${AGENT_CARD_PATH} and POST ${JSON_RPC_PATH}.`);
}
