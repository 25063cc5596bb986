/**
 * One configured MCP server over the life of a warm process.
 *
 *   (not started) ─connect + list ok─▶ connected ─transport closed, list or call broke─▶ failed
 *         └────────connect or list fails───────────────────────────────────────────────▶ failed
 *   failed ─a refresh() once tools.retryFailedAfterSeconds have passed─▶ connect again
 *
 * While connected, the tool list is cached until its TTL ends or the server sends list_changed.
 * refresh() never throws: a failure only removes this server's tools, and is logged once.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../core/errors.ts';
import { withoutLogContext } from '../../core/log-context.ts';
import { ms } from '../../core/time.ts';
import type { ToolServerStatus } from '../../core/ports.ts';
import { connectServer, type ServerConnection } from './connect.ts';
import { startDeadline, type Deadline } from './deadline.ts';
import { listAllTools } from './list-tools.ts';
import type { McpGatewayOptions, McpServerSpec, TransportKind } from './types.ts';

export type ManagedServerOptions = Omit<McpGatewayOptions, 'servers'> & { shutdown: AbortSignal };

export class ManagedServer {
  readonly spec: McpServerSpec;
  private readonly options: ManagedServerOptions;
  private connection: ServerConnection | undefined;
  private tools: Tool[] = [];
  private expiresAt = 0;
  /** Bumped by list_changed, so a listing that was in flight at that moment is not trusted. */
  private generation = 0;
  private failure: { message: string; at: number } | undefined;
  private transport: TransportKind;

  constructor(spec: McpServerSpec, options: ManagedServerOptions) {
    this.spec = spec;
    this.options = options;
    this.transport = spec.type === 'stdio' ? 'stdio' : spec.type === 'sse' ? 'sse' : 'http';
  }

  /** Tools of the current session; empty while the server is failed. */
  get listedTools(): Tool[] {
    return this.connection ? this.tools : [];
  }

  /** The live session, or an explanation of why there is none. */
  get session(): { connection: ServerConnection } | { unavailable: string } {
    if (this.connection) return { connection: this.connection };
    return { unavailable: this.failure?.message ?? 'not connected yet' };
  }

  status(): ToolServerStatus {
    const base = { name: this.spec.name, transport: this.transport };
    if (this.connection) return { ...base, status: 'connected', toolCount: this.tools.length };
    return { ...base, status: 'failed', toolCount: 0, error: this.failure?.message ?? 'not connected yet' };
  }

  invalidate(): void {
    this.generation++;
    this.expiresAt = 0;
  }

  async refresh(): Promise<void> {
    if (this.options.shutdown.aborted) return;
    if (this.connection) {
      if (Date.now() < this.expiresAt) return;
      const connection = this.connection;
      const deadline = this.startDeadline();
      try {
        await this.list(connection, deadline.signal);
      } catch (error) {
        // Already marked failed when the transport closed under the listing.
        if (this.connection !== connection) return;
        this.connection = undefined;
        await connection.close();
        this.recordFailure(error, deadline, 'did not answer tools/list');
      } finally {
        deadline.dispose();
      }
      return;
    }
    if (this.failure && Date.now() - this.failure.at < ms(this.options.settings.retryFailedAfterSeconds)) return;
    await this.connect();
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close();
  }

  private async connect(): Promise<void> {
    const deadline = this.startDeadline();
    let connection: ServerConnection | undefined;
    try {
      // The server process outlives this turn: its stderr lines must not carry this turn's ids.
      connection = await withoutLogContext(() => connectServer(this.spec, {
        signal: deadline.signal,
        logger: this.options.logger,
        maxResultBytes: this.options.settings.maxResultBytes,
        onToolsChanged: () => this.invalidate(),
        onClosed: () => this.handleClosed(connection),
      }));
      this.transport = connection.transport;
      await this.list(connection, deadline.signal);
      if (this.options.shutdown.aborted) throw new Error('the tool gateway was closed');
      this.connection = connection;
      this.failure = undefined;
      this.options.logger.info('mcp server connected', {
        server: this.spec.name,
        transport: this.transport,
        toolCount: this.tools.length,
      });
    } catch (error) {
      await connection?.close();
      this.recordFailure(error, deadline, 'did not connect and list its tools');
    } finally {
      deadline.dispose();
    }
  }

  private async list(connection: ServerConnection, signal: AbortSignal): Promise<void> {
    const generation = this.generation;
    const listing = await listAllTools(connection.client, { signal, timeoutMs: ms(this.options.settings.connectTimeoutSeconds) });
    this.tools = listing.tools;
    const ttlMs = listing.ttlMs ?? ms(this.options.settings.catalogTtlSeconds);
    this.expiresAt = generation === this.generation ? Date.now() + ttlMs : 0;
  }

  /**
   * A call found the session broken (an HTTP server that restarted has forgotten it, a stream
   * that died without closing): treat it like a closed transport, so it is reconnected.
   */
  async drop(connection: ServerConnection, reason: string): Promise<void> {
    if (this.connection !== connection) return;
    this.markFailed(reason, 'mcp server connection failed');
    await connection.close();
  }

  private handleClosed(connection: ServerConnection | undefined): void {
    if (!connection || this.connection !== connection) return;
    this.markFailed('the connection to the server closed', 'mcp server connection closed');
  }

  private markFailed(reason: string, logMessage: string): void {
    this.connection = undefined;
    this.failure = { message: reason, at: Date.now() };
    this.options.logger.warn(logMessage, { server: this.spec.name, transport: this.transport, error: reason });
  }

  private startDeadline(): Deadline {
    return startDeadline(ms(this.options.settings.connectTimeoutSeconds), this.options.shutdown);
  }

  private recordFailure(error: unknown, deadline: Deadline, timeoutWording: string): void {
    if (this.options.shutdown.aborted) return;
    const message = deadline.timedOut
      ? `${timeoutWording} within ${ms(this.options.settings.connectTimeoutSeconds)} ms`
      : errorMessage(error);
    this.failure = { message, at: Date.now() };
    this.options.logger.warn('mcp server unavailable', {
      server: this.spec.name,
      transport: this.transport,
      error: message,
    });
  }
}
