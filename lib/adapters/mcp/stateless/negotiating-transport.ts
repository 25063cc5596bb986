/**
 * Protocol revision 2026-07-28 (stateless) over the SDK 1.x Streamable HTTP transport, negotiated
 * per server. That revision has no initialize handshake and no session: every request carries the
 * protocol version and the client's capabilities in `_meta` (and its method in headers), and a
 * client learns the server's capabilities from `server/discover`.
 *
 * The SDK's Client always opens with initialize. This transport sits under it and turns that
 * first request into the negotiation:
 *
 *   initialize ─▶ server/discover ─┬─ supportedVersions has 2026-07-28 ─▶ stateless: the discover
 *                                  │   result is handed back as the initialize result,
 *                                  │   notifications/initialized is dropped, every later message
 *                                  │   carries the envelope
 *                                  ├─ -32022 (unsupported version) naming 2026-07-28 ─▶ asked once more
 *                                  └─ anything else (a 2025 server answers 400, 404, or an error;
 *                                      -32022 naming only 2025 revisions) ─▶ initialize goes out
 *                                      (proposing the newest revision the server named): the stateful
 *                                      era, as before
 *
 * A 2025 server therefore costs one extra POST per connection. What each message carries is in
 * envelope.ts; results with `resultType: "input_required"` are answered in input-required.ts.
 */
import { StreamableHTTPError, type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  isInitializeRequest,
  isInitializedNotification,
  isJSONRPCRequest,
  type Implementation,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { AgentError } from '../../../core/errors.ts';
import type { HeaderParameter } from './param-headers.ts';
import { SERVER_INFO_KEY, STATELESS_PROTOCOL_VERSION, type Era, type EraNegotiation } from './envelope.ts';

export class NegotiatingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private readonly inner: StreamableHTTPClientTransport;
  private readonly negotiation: EraNegotiation;
  private readonly probeTimeoutMs: number;
  private probe: { id: string; answer(message: JSONRPCMessage): void } | undefined;

  /**
   * @param probeTimeoutMs How long server/discover may go unanswered before the server is taken
   *   for a 2025 one (which accepted the POST but never answers it); the rest of the connect time
   *   is left for initialize.
   */
  constructor(inner: StreamableHTTPClientTransport, negotiation: EraNegotiation, probeTimeoutMs: number) {
    this.inner = inner;
    this.probeTimeoutMs = probeTimeoutMs;
    this.negotiation = negotiation;
  }

  get era(): Era {
    return this.negotiation.era;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Per tool, the arguments its calls carry as `Mcp-Param-*` headers (stateless era only). */
  get headerParameters(): Map<string, HeaderParameter[]> {
    return this.negotiation.headerParameters;
  }

  /** The underlying transport, for ending its session (stateful era only). */
  get streamableHttp(): StreamableHTTPClientTransport {
    return this.inner;
  }

  async start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      if (this.probe && 'id' in message && message.id === this.probe.id && !('method' in message)) this.probe.answer(message);
      else this.onmessage?.(message, extra);
    };
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.negotiation.era === 'probing' && isJSONRPCRequest(message) && isInitializeRequest(message)) return this.negotiate(message, options);
    if (this.negotiation.era !== 'stateless') return this.inner.send(message, options);
    if (isInitializedNotification(message)) return;
    try {
      return await this.inner.send(this.negotiation.withEnvelope(message), options);
    } catch (error) {
      // This era answers a refused request with an HTTP error status and the JSON-RPC error in the
      // body (-32021 a capability the client did not declare, -32602 bad params). That is the
      // server's answer to the request, not a broken transport: deliver it as one.
      const answer = isJSONRPCRequest(message) ? errorAnswerIn(error, message.id) : undefined;
      if (!answer) throw error;
      this.onmessage?.(answer);
    }
  }

  setProtocolVersion(version: string): void {
    // The stateless era's version travels in every message; the SDK's 2025 one must not replace it.
    if (this.negotiation.era !== 'stateless') this.inner.setProtocolVersion(version);
  }

  async close(): Promise<void> {
    await this.inner.close();
  }

  private async negotiate(initialize: JSONRPCRequest, options?: TransportSendOptions): Promise<void> {
    const probeId = `server-discover-${String(initialize.id)}`;
    let discovery = await this.discover(probeId);
    // -32022 names the versions the server does speak: asked again once when 2026-07-28 is one of them.
    if (discovery.kind === 'unsupported' && discovery.supported.includes(STATELESS_PROTOCOL_VERSION)) discovery = await this.discover(`${probeId}-again`);
    if (discovery.kind !== 'stateless') {
      this.negotiation.era = 'stateful';
      return this.inner.send(discovery.kind === 'unsupported' ? proposing(initialize, discovery.supported) : initialize, options);
    }
    this.negotiation.era = 'stateless';
    const discovered = discovery.result;
    const meta = (discovered._meta ?? {}) as Record<string, unknown>;
    const serverInfo = (meta[SERVER_INFO_KEY] ?? discovered.serverInfo ?? { name: 'unknown', version: '' }) as Implementation;
    // What the SDK's Client expects of initialize; it accepts only the 2025 revisions it knows,
    // and the real revision is kept by this transport.
    const result = {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: discovered.capabilities ?? {},
      serverInfo,
      ...(typeof discovered.instructions === 'string' ? { instructions: discovered.instructions } : {}),
    };
    queueMicrotask(() => this.onmessage?.({ jsonrpc: '2.0', id: initialize.id, result }));
  }

  /** server/discover: the server speaks the stateless era, refuses the version naming those it speaks, or neither. */
  private async discover(id: string): Promise<Discovery> {
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<JSONRPCMessage | undefined>((resolve) => {
      this.probe = { id, answer: resolve };
      // A server that accepts the POST but never answers it is not one to wait for here.
      timer = setTimeout(() => resolve(undefined), this.probeTimeoutMs);
    });
    try {
      const request = this.negotiation.withEnvelope({ jsonrpc: '2.0', id, method: 'server/discover', params: {} });
      // A 2025 server refuses the request (400 without a session, 404, 405); a 2026 one that
      // refuses the version answers 400 with -32022 in the body. The wait for the POST's own
      // response is bounded too: a server may never send it.
      const sent = this.inner.send(request).then(
        () => answered,
        (error: unknown) => {
          // Not an answer of the server but this service's own verdict (OAuth: only a person can go
          // on, the server moved to another authorization server): initialize would meet the same,
          // and its refusal would hide this one's message.
          if (error instanceof AgentError) throw error;
          return errorAnswerIn(error, id);
        },
      );
      const answer = await Promise.race([sent, answered]);
      if (!answer) return { kind: 'neither' };
      if ('error' in answer) return unsupportedVersions(answer) ?? { kind: 'neither' };
      if (!('result' in answer)) return { kind: 'neither' };
      const result = answer.result as Record<string, unknown>;
      const versions = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
      return versions.includes(STATELESS_PROTOCOL_VERSION) ? { kind: 'stateless', result } : { kind: 'neither' };
    } finally {
      clearTimeout(timer);
      this.probe = undefined;
    }
  }
}

type Discovery = { kind: 'stateless'; result: Record<string, unknown> } | { kind: 'unsupported'; supported: string[] } | { kind: 'neither' };

/** SEP-2575's UnsupportedProtocolVersion error, with the versions the server says it supports. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

function unsupportedVersions(answer: JSONRPCMessage): Discovery | undefined {
  if (!('error' in answer) || answer.error.code !== UNSUPPORTED_PROTOCOL_VERSION) return undefined;
  const supported = (answer.error.data as { supported?: unknown } | undefined)?.supported;
  return { kind: 'unsupported', supported: Array.isArray(supported) ? supported.filter((version): version is string => typeof version === 'string') : [] };
}

/**
 * The initialize of the stateful era, proposing the newest 2025 revision both sides speak when the
 * server named its versions (the SDK proposes its own newest, and the server would have to answer
 * with another); unchanged when they share none.
 */
function proposing(initialize: JSONRPCRequest, supported: string[]): JSONRPCRequest {
  const shared = SUPPORTED_PROTOCOL_VERSIONS.find((version) => supported.includes(version));
  if (!shared) return initialize;
  return { ...initialize, params: { ...initialize.params, protocolVersion: shared } };
}

/** The JSON-RPC error response for `id` that the SDK's HTTP error carries in its message, if any. */
function errorAnswerIn(error: unknown, id: RequestId): JSONRPCErrorResponse | undefined {
  if (!(error instanceof StreamableHTTPError)) return undefined;
  const start = error.message.indexOf('{');
  if (start === -1) return undefined;
  try {
    const body = JSON.parse(error.message.slice(start)) as Partial<JSONRPCErrorResponse>;
    return body.id === id && body.error && typeof body.error.code === 'number' ? (body as JSONRPCErrorResponse) : undefined;
  } catch {
    return undefined;
  }
}
