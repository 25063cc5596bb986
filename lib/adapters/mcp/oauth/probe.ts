/**
 * The first step of the MCP specification's discovery: an MCP request without a token, whose 401
 * names in WWW-Authenticate where the protected resource metadata is (`resource_metadata`, which
 * may be a custom location) and which scope the server wants. The probe sends what the gateway
 * would send first, and stops at the first challenge:
 *
 *   server/discover (the 2026-07-28 stateless era) ──401/403──▶ its challenge
 *     └─answered──▶ tools/list, stateless ──401/403──▶ its challenge
 *   initialize (the stateful era) ──401/403──▶ its challenge
 *     └─answered (some servers let initialize through)──▶ tools/list in that session ──▶ its challenge
 *   nothing challenged: discovery goes on from the well-known locations
 *
 * The request after the opening one matters for the scope: a server that lets everyone open a
 * connection would otherwise be asked for its resource metadata's scopes_supported, which need
 * not include what its tools require (the MCP scope selection strategy puts the challenge first).
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CLIENT_INFO } from '../connect.ts';
import { EraNegotiation } from '../stateless/envelope.ts';

export interface ProbedServer {
  url: string;
  type: 'http' | 'sse' | 'auto';
  headers: Record<string, string>;
}

interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

const JSON_OR_STREAM = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export async function probeChallenge(server: ProbedServer, fetch: FetchLike, signal?: AbortSignal): Promise<Challenge> {
  const withSignal = signal ? { signal } : {};
  if (server.type === 'sse') {
    const response = await fetch(server.url, { method: 'GET', headers: { ...server.headers, accept: 'text/event-stream' }, ...withSignal });
    await response.body?.cancel().catch(() => undefined);
    return challengeOf(response);
  }
  const send = (via: FetchLike, message: object, headers: Record<string, string> = {}) =>
    via(server.url, { method: 'POST', headers: { ...server.headers, ...JSON_OR_STREAM, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', ...message }), ...withSignal });
  // The stateless era: every request carries the protocol version and the client in _meta and headers.
  const stateless = new EraNegotiation(CLIENT_INFO, {});
  const statelessFetch = stateless.wrapFetch(fetch);
  const sendStateless = (message: JSONRPCMessage) => send(statelessFetch, stateless.withEnvelope(message));
  const discovered = await outcomeOf(await sendStateless({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: {} }));
  if ('challenged' in discovered) return discovered.challenged;
  if (discovered.answered) {
    const listed = await outcomeOf(await sendStateless({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
    if ('challenged' in listed) return listed.challenged;
  }

  // The stateful era.
  const initialized = await send(fetch, { id: 2, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO } });
  if (!initialized.ok) {
    await initialized.body?.cancel().catch(() => undefined);
    return challengeOf(initialized);
  }
  // The session initialize opened, in the protocol version the server chose.
  const sessionId = initialized.headers.get('mcp-session-id');
  const session = {
    'mcp-protocol-version': (await protocolVersionOf(initialized)) ?? LATEST_PROTOCOL_VERSION,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  };
  try {
    const notified = await outcomeOf(await send(fetch, { method: 'notifications/initialized' }, session));
    if ('challenged' in notified) return notified.challenged;
    const listed = await outcomeOf(await send(fetch, { id: 3, method: 'tools/list', params: {} }, session));
    return 'challenged' in listed ? listed.challenged : {};
  } finally {
    if (sessionId) await endSession(server, sessionId, fetch);
  }
}

const isChallenge = (response: Response) => response.status === 401 || response.status === 403;

/** One probe request: the challenge it met, or whether it was answered without one. */
type Outcome = { challenged: Challenge } | { answered: boolean };

async function outcomeOf(response: Response): Promise<Outcome> {
  await response.body?.cancel().catch(() => undefined);
  return isChallenge(response) ? { challenged: challengeOf(response) } : { answered: response.ok };
}

/** The challenge's parameters; nothing when the response is not one. */
function challengeOf(response: Response): Challenge {
  if (!isChallenge(response)) return {};
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
}

/** The protocolVersion of initialize's answer (JSON, or the event stream carrying it): read until it shows, for 5 s at most. */
async function protocolVersionOf(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const decoder = new TextDecoder();
  const deadline = setTimeout(() => void reader.cancel().catch(() => undefined), 5_000);
  let text = '';
  try {
    for (;;) {
      const found = /"protocolVersion"\s*:\s*"([^"]+)"/.exec(text)?.[1];
      if (found !== undefined) return found;
      const { done, value } = await reader.read();
      if (done) return undefined;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return undefined;
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => undefined);
  }
}

/** A server that let the probe initialize a session is told it is over. */
async function endSession(server: ProbedServer, sessionId: string, fetch: FetchLike): Promise<void> {
  await fetch(server.url, { method: 'DELETE', headers: { ...server.headers, 'mcp-session-id': sessionId }, signal: AbortSignal.timeout(2_000) })
    .then((answer) => answer.body?.cancel())
    .catch(() => undefined);
}
