/**
 * Opens one MCP client session over the transport a server spec asks for. SDK transports are built
 * here and, for servers over HTTP, in remote.ts; everything else sees a `ServerConnection`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { BoundedStdioClientTransport } from './bounded/stdio.ts';
import { createRemoteTransport, endRemoteSession, statelessEra } from '#mcp-remote';
import { schemaValidator } from './schema/compile.ts';
import { registerAnswers, type ServerRequestAnswers } from './server-requests.ts';
import type { HeaderParameter } from './stateless/param-headers.ts';
import { logStderrLines } from './stderr.ts';
import { stdioServerParameters } from './stdio-parameters.ts';
import type { McpServerSpec, TransportKind } from './types.ts';

export const CLIENT_INFO = { name: 'mcp-agent-service', version: '0.1.0' };

export interface ServerConnection {
  client: Client;
  transport: TransportKind;
  /** The protocol revision agreed with the server. */
  protocolVersion: string | undefined;
  /** Stateless (2026-07-28, no session; results may ask for input) or stateful (2025-11-25 and older). */
  era: 'stateless' | 'stateful';
  /** How requests of the server are answered (in the stateless era, inside its results). */
  answers: ServerRequestAnswers;
  /**
   * Stateless era over HTTP: per tool, the arguments its calls carry as `Mcp-Param-*` headers
   * (SEP-2243), filled from each listing.
   */
  headerParameters?: Map<string, HeaderParameter[]>;
  close(): Promise<void>;
}

interface ConnectOptions {
  /** Aborts the attempt (connect timeout or gateway shutdown); whatever was started is closed. */
  signal: AbortSignal;
  /** The connect timeout that signal keeps. */
  connectTimeoutMs: number;
  logger: Logger;
  /** A message larger than this is cut off while it arrives; only its request fails. */
  maxResultBytes: number;
  /** The server sent `notifications/tools/list_changed`. */
  onToolsChanged(): void;
  /** The session ended (process exit, dropped stream, or our own close). */
  onClosed(): void;
  /** What the client declares (roots, elicitation, sampling: server-requests.ts). */
  capabilities: ClientCapabilities;
  /** How it answers the requests a server may send under those capabilities. */
  answers: ServerRequestAnswers;
}

/** Connects and initializes; `auto` tries Streamable HTTP first, then legacy SSE. */
export async function connectServer(spec: McpServerSpec, options: ConnectOptions): Promise<ServerConnection> {
  if (spec.type === 'stdio' || spec.type === 'in-memory') return open(spec, spec.type, options);
  if (spec.type !== 'auto') return open(spec, spec.type, options);
  try {
    return await open(spec, 'http', options);
  } catch (streamableError) {
    if (options.signal.aborted) throw streamableError;
    // The SDK's backwards-compatibility pattern: a server that rejects the Streamable HTTP
    // initialize POST may be an older HTTP+SSE server.
    options.logger.debug('mcp server did not accept Streamable HTTP, trying SSE', {
      server: spec.name,
      error: errorMessage(streamableError),
    });
    try {
      return await open(spec, 'sse', options);
    } catch (sseError) {
      throw new Error(`Streamable HTTP: ${errorMessage(streamableError)}; SSE: ${errorMessage(sseError)}`, {
        cause: sseError,
      });
    }
  }
}

async function open(spec: McpServerSpec, kind: TransportKind, options: ConnectOptions): Promise<ServerConnection> {
  let closed = false;
  // A stream that owes answers ended for good (bounded/fetch.ts): close, which fails the waiting
  // requests at once (the SDK would leave them to their timeouts) and has the server reconnected.
  const onLost = (reason: string) => {
    if (closed) return;
    closed = true;
    options.logger.warn('mcp connection lost', { server: spec.name, transport: kind, reason });
    void client.close().catch(() => undefined);
  };
  const transport = spec.type === 'in-memory' ? await inMemoryTransport(spec, options.signal) : createTransport(spec, kind, options, onLost);
  // The same JSON Schema compiler that judged the tools checks their structured results.
  const client = new Client(CLIENT_INFO, { capabilities: options.capabilities, jsonSchemaValidator: schemaValidator });
  registerAnswers(client, options.answers);
  const negotiated = recordProtocolVersion(transport);
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged());
  client.onclose = () => options.onClosed();
  client.onerror = (error) => options.logger.debug('mcp transport error', { server: spec.name, error: error.message });

  const close = async (): Promise<void> => {
    closed = true;
    await endRemoteSession(transport);
    await client.close().catch(() => undefined);
  };
  try {
    // transport.start() takes no signal (an SSE GET may hang), hence the race.
    await untilAborted(client.connect(transport, { signal: options.signal }), options.signal);
    const stateless = statelessEra(transport);
    const era = stateless ? { era: 'stateless' as const, headerParameters: stateless.headerParameters } : { era: 'stateful' as const };
    return { client, transport: kind, protocolVersion: stateless?.protocolVersion ?? negotiated(), ...era, answers: options.answers, close };
  } catch (error) {
    closed = true;
    await client.close().catch(() => undefined);
    throw error;
  }
}

type InMemorySpec = Extract<McpServerSpec, { type: 'in-memory' }>;

/** The client's end of a linked pair whose other end the in-process server has been connected to. */
async function inMemoryTransport(spec: InMemorySpec, signal: AbortSignal): Promise<Transport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await untilAborted(spec.connect(serverSide), signal);
  return clientSide;
}

function createTransport(spec: Exclude<McpServerSpec, InMemorySpec>, kind: TransportKind, options: ConnectOptions, onLost: (reason: string) => void): Transport {
  const { logger, maxResultBytes } = options;
  const bounds = { maxResultBytes, server: spec.name, logger };
  if (spec.type === 'stdio') {
    const transport = new BoundedStdioClientTransport(stdioServerParameters(spec), bounds);
    if (transport.stderr) logStderrLines(transport.stderr, spec.name, logger);
    return transport;
  }
  return createRemoteTransport(spec, kind === 'sse' ? 'sse' : 'http', { clientInfo: CLIENT_INFO, capabilities: options.capabilities, logger, maxResultBytes, connectTimeoutMs: options.connectTimeoutMs, onLost });
}

/** The client hands the negotiated version to transports that take it; stdio does not, so ask all. */
function recordProtocolVersion(transport: Transport): () => string | undefined {
  let version: string | undefined;
  const original = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (negotiated: string) => {
    version = negotiated;
    original?.(negotiated);
  };
  return () => version;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
