/**
 * The first step of the MCP specification's discovery: an MCP request without a token, whose 401
 * names in WWW-Authenticate where the protected resource metadata is (`resource_metadata`, which
 * may be a custom location) and which scope the server wants.
 *
 *   initialize ──401/403──▶ its challenge
 *        │
 *        └─answered (some servers let initialize through)──▶ tools/list, the gateway's first real
 *              request, in that session ──401/403──▶ its challenge; answered too: no challenge,
 *              and discovery goes on from the well-known locations
 *
 * The second request matters for the scope: without it, a server that opens only initialize to
 * everyone would be asked for its resource metadata's scopes_supported, which need not include
 * what its tools require (the MCP scope selection strategy puts the challenge's scope first).
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CLIENT_INFO } from '../connect.ts';

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
  const post = (body: object, headers: Record<string, string> = {}) =>
    fetch(server.url, { method: 'POST', headers: { ...server.headers, ...JSON_OR_STREAM, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', ...body }), ...withSignal });
  const initialized = await post({ id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO } });
  if (isChallenge(initialized)) {
    await initialized.body?.cancel().catch(() => undefined);
    return challengeOf(initialized);
  }
  if (!initialized.ok) {
    await initialized.body?.cancel().catch(() => undefined);
    return {};
  }
  // The session initialize opened, in the protocol version the server chose.
  const sessionId = initialized.headers.get('mcp-session-id');
  const session = {
    'mcp-protocol-version': (await protocolVersionOf(initialized)) ?? LATEST_PROTOCOL_VERSION,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  };
  try {
    const notified = await post({ method: 'notifications/initialized' }, session);
    await notified.body?.cancel().catch(() => undefined);
    if (isChallenge(notified)) return challengeOf(notified);
    const listed = await post({ id: 1, method: 'tools/list', params: {} }, session);
    await listed.body?.cancel().catch(() => undefined);
    return isChallenge(listed) ? challengeOf(listed) : {};
  } finally {
    if (sessionId) await endSession(server, sessionId, fetch);
  }
}

const isChallenge = (response: Response) => response.status === 401 || response.status === 403;

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
