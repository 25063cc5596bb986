/**
 * One configured MCP server over the life of a warm process.
 *
 *   (not started) ─connect + list ok─▶ connected ─transport closed, list/call/ping broke─▶ failed
 *         └────────connect or list fails─────────────────────────────────────────────────▶ failed
 *   failed ─background attempt (reconnect-backoff.ts: at once after a session broke, then 1 s,
 *           2 s, 4 s … up to tools.reconnectMaxDelaySeconds)─▶ connect again; a call or a health
 *           check that finds the server failed tries at once and waits briefly
 *   connected ─a request answered 404 / "no valid session"─▶ new session, that request sent again once
 *
 * While connected, the tool list is cached until its TTL ends or the server sends list_changed.
 * The names of the tools a server listed last are remembered while it is failed, so the names the
 * gateway assigns never change because a server dropped out (gateway.ts). For a while after a
 * working session broke (OFFERED_WHILE_RECONNECTING_MS) the tools themselves stay offered: a crash
 * just before a turn must not make them vanish from the model's catalog, and a call to one waits
 * for the reconnection within its own time (run()).
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../core/errors.ts';
import { withoutLogContext } from '../../core/log-context.ts';
import type { ServerRequestContext, ToolServerStatus } from '../../core/ports/tools.ts';
import { ms } from '../../core/time.ts';
import { connectServer, type ServerConnection } from './connect.ts';
import { startDeadline, type Deadline } from './deadline.ts';
import { listAllTools, type ListedTool, type SkippedTool } from './list-tools.ts';
import { ReconnectBackoff } from './reconnect-backoff.ts';
import { clientCapabilities, serverRequestAnswers } from './server-requests.ts';
import { isSessionExpired, isUnauthorized } from '#mcp-remote';
import type { McpGatewayOptions, McpServerSpec, TransportKind } from './types.ts';

type ManagedServerOptions = Omit<McpGatewayOptions, 'servers'> & { shutdown: AbortSignal };

/** A health check reuses what it found for this long, and gives a ping this long to answer. */
const HEALTH_CACHE_MS = 5_000;
const PING_TIMEOUT_MS = 2_000;
/** How long a listing waits for a server that is reconnecting (and whose tools are no longer offered). */
const LISTING_WAIT_MS = 3_000;
/** How long after a working session broke its tools stay offered while the server reconnects. */
export const OFFERED_WHILE_RECONNECTING_MS = 60_000;
/** A call waiting for a reconnection tries again this often when an attempt failed (not the backoff's 1, 2, 4 s …). */
const RETRY_WHILE_WAITING_MS = 500;

interface CallInFlight {
  name: string;
  originalName: string;
  caller?: ServerRequestContext['toolCalls'][number]['caller'];
}

export class ManagedServer {
  readonly spec: McpServerSpec;
  private readonly options: ManagedServerOptions;
  private connection: ServerConnection | undefined;
  private tools: ListedTool[] = [];
  private skipped: SkippedTool[] = [];
  /** The names listed when the server was last seen; kept while it is failed. */
  private known: string[] = [];
  private expiresAt = 0;
  /** Bumped by list_changed, so a listing that was in flight at that moment is not trusted. */
  private generation = 0;
  /** The last attempt's failure; `refused`: the server turned the service away (401/403), which waiting does not cure. */
  /** `forCaller`: the attempt failed for its caller's token (missing, refused), which says nothing of the server. */
  private failure: { message: string; at: number; refused: boolean; forCaller?: boolean } | undefined;
  /** When the last working session broke; cleared once connected again. */
  private brokeAt: number | undefined;
  private transport: TransportKind;
  private connecting: Promise<void> | undefined;
  private readonly backoff: ReconnectBackoff;
  private health: { at: number; check: Promise<void> } | undefined;
  private readonly calls = new Set<CallInFlight>();

  constructor(spec: McpServerSpec, options: ManagedServerOptions) {
    this.spec = spec;
    this.options = options;
    this.transport = spec.type === 'stdio' || spec.type === 'in-memory' ? spec.type : spec.type === 'sse' ? 'sse' : 'http';
    this.backoff = new ReconnectBackoff(ms(options.settings.reconnectMaxDelaySeconds), () => {
      if (!options.shutdown.aborted) void this.connect();
    });
  }

  /** Tools of the current session, or of the last one while it reconnects after a break; else empty. */
  get listedTools(): ListedTool[] {
    return this.connection || this.reconnectingAfterBreak() ? this.tools : [];
  }

  /** The tool names of the last listing, whether or not the server is connected now. */
  get knownToolNames(): string[] {
    return this.known;
  }

  status(): ToolServerStatus {
    const base = { name: this.spec.name, transport: this.transport };
    const skipped = this.skipped.length > 0 ? { skippedTools: this.skipped } : {};
    if (this.connection) {
      const version = this.connection.protocolVersion === undefined ? {} : { protocolVersion: this.connection.protocolVersion };
      return { ...base, status: 'connected', toolCount: this.tools.length, ...version, ...skipped };
    }
    return { ...base, status: 'failed', toolCount: 0, error: this.failureText(), ...skipped };
  }

  invalidate(): void {
    this.generation++;
    this.expiresAt = 0;
  }

  /** Brings the catalog up to date: lists again when its TTL ended, connects when due. Never throws. */
  async refresh(): Promise<void> {
    if (this.options.shutdown.aborted) return;
    const connection = this.connection;
    if (connection) {
      if (Date.now() < this.expiresAt) return;
      const deadline = this.startDeadline();
      try {
        await this.list(connection, deadline.signal);
      } catch (error) {
        if (isSessionExpired(error)) await this.renew(connection);
        else this.fail(connection, this.describe(error, deadline, 'did not answer tools/list'));
      } finally {
        deadline.dispose();
      }
      return;
    }
    // The first connection is waited for (connectTimeoutSeconds at most): without it there is no
    // catalog. A reconnection runs in the background and gets a moment: a server that hangs
    // must not hold up every turn; its tools come back with the next listing after it succeeds.
    // A server whose session just broke keeps its tools offered: its reconnection is not waited for.
    // A failure for a caller's token is no failure of the server: the next caller's attempt is a first connection.
    if (!this.failure || this.failure.forCaller) await (this.connecting ?? this.connect());
    else if (this.reconnectingAfterBreak()) {
      if (!this.connecting && this.backoff.waitMs === 0) void this.connect();
    } else if (this.connecting || this.backoff.waitMs === 0) await this.reconnectWithin(LISTING_WAIT_MS);
  }

  /**
   * Runs one request on the live session. A server that is failed or reconnecting gets connection
   * attempts (one at once, then every RETRY_WHILE_WAITING_MS) for up to `waitMs`; a session the
   * server forgot is renewed at once and the request sent once more (it was never processed).
   * Throws ServerUnavailable when there is no session by then.
   */
  async run<T>(operation: (connection: ServerConnection) => Promise<T>, waitMs: number, call?: CallInFlight): Promise<T> {
    const connection = await this.awaitConnection(waitMs);
    if (call) this.calls.add(call);
    try {
      try {
        return await operation(connection);
      } catch (error) {
        if (!isSessionExpired(error)) throw error;
        this.options.logger.info('mcp session expired, starting a new one', { server: this.spec.name });
        await this.renew(connection);
        return await operation(await this.awaitConnection(waitMs));
      }
    } finally {
      if (call) this.calls.delete(call);
    }
  }

  /**
   * The truth for /health: a connected server must answer a ping (any answer, an error included,
   * shows it alive); a failed one gets an attempt to reconnect. Found states are kept a few seconds.
   */
  async checkHealth(): Promise<void> {
    if (this.options.shutdown.aborted) return;
    if (this.health && Date.now() - this.health.at < HEALTH_CACHE_MS) return this.health.check;
    const check = this.connection ? this.ping(this.connection) : this.reconnectWithin(PING_TIMEOUT_MS);
    this.health = { at: Date.now(), check };
    return check;
  }

  async close(): Promise<void> {
    this.backoff.cancel();
    const connection = this.connection;
    this.connection = undefined;
    await this.connecting?.catch(() => undefined);
    await connection?.close();
  }

  /** A call found the session broken (a stream that died without closing): reconnect. */
  async drop(connection: ServerConnection, reason: string): Promise<void> {
    this.fail(connection, reason);
  }

  private async ping(connection: ServerConnection): Promise<void> {
    try {
      await connection.client.ping({ timeout: PING_TIMEOUT_MS });
    } catch (error) {
      // A JSON-RPC answer (even "method not found") shows the server alive.
      if (error instanceof McpError && error.code !== ErrorCode.RequestTimeout && error.code !== ErrorCode.ConnectionClosed) return;
      if (isSessionExpired(error)) await this.renew(connection);
      else this.fail(connection, `did not answer a ping: ${errorMessage(error)}`);
    }
  }

  private async awaitConnection(waitMs: number): Promise<ServerConnection> {
    const until = Date.now() + waitMs;
    while (!this.connection && !this.options.shutdown.aborted && Date.now() < until) {
      await this.reconnectWithin(until - Date.now());
      // A server that refuses the service's credentials will not let it in a moment later either.
      if (this.connection || this.failure?.refused) break;
      await pause(Math.min(RETRY_WHILE_WAITING_MS, until - Date.now()));
    }
    if (this.connection) return this.connection;
    throw new ServerUnavailable(this.failureText());
  }

  private reconnectingAfterBreak(): boolean {
    return !this.connection && this.brokeAt !== undefined && Date.now() - this.brokeAt < OFFERED_WHILE_RECONNECTING_MS;
  }

  /** Starts an attempt unless one is running, and waits for it at most `waitMs`. */
  private async reconnectWithin(waitMs: number): Promise<void> {
    if (this.options.shutdown.aborted) return;
    const attempt = this.connecting ?? this.connect();
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([attempt, giveUp]);
    clearTimeout(timer);
  }

  /** One attempt at a time: whoever asks while one runs shares it. */
  private connect(): Promise<void> {
    this.backoff.cancel();
    this.connecting ??= this.attempt().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async attempt(): Promise<void> {
    if (this.options.shutdown.aborted) return;
    const deadline = this.startDeadline();
    let connection: ServerConnection | undefined;
    try {
      const requests = {
        spec: this.spec,
        defaultElicitation: this.options.settings.elicitation,
        onElicitation: this.options.onElicitation,
        onSampling: this.options.onSampling,
        logger: this.options.logger,
        context: (signal: AbortSignal) => this.requestContext(signal),
      };
      const capabilities = clientCapabilities(requests);
      // The server process outlives this turn: its stderr lines must not carry this turn's ids.
      connection = await withoutLogContext(() => connectServer(this.spec, {
        signal: deadline.signal,
        connectTimeoutMs: ms(this.options.settings.connectTimeoutSeconds),
        logger: this.options.logger,
        maxResultBytes: this.options.settings.maxResultBytes,
        capabilities,
        answers: serverRequestAnswers(capabilities, requests),
        onToolsChanged: () => this.invalidate(),
        onClosed: () => this.handleClosed(connection),
      }));
      this.transport = connection.transport;
      await this.list(connection, deadline.signal);
      if (this.options.shutdown.aborted) throw new Error('the tool gateway was closed');
      this.connection = connection;
      this.failure = undefined;
      this.brokeAt = undefined;
      this.backoff.succeeded();
      this.health = undefined;
      this.options.logger.info('mcp server connected', {
        server: this.spec.name,
        transport: this.transport,
        protocolVersion: connection.protocolVersion,
        toolCount: this.tools.length,
      });
      for (const tool of this.skipped) {
        this.options.logger.warn('mcp tool skipped', { server: this.spec.name, tool: tool.name, reason: tool.reason });
      }
    } catch (error) {
      await connection?.close();
      if (this.options.shutdown.aborted) return;
      // A server called on the caller's behalf cannot connect before a caller comes (a start-up
      // listing, /health), nor with a caller whose token is refused: that says nothing of the
      // server, so the next turn with a (good) caller token connects it at once, without a backoff.
      const forCaller = failedForTheCaller(error);
      this.failure = { message: this.describe(error, deadline, 'did not connect and list its tools'), at: Date.now(), refused: refusedAccess(error), ...(forCaller ? { forCaller } : {}) };
      this.options.logger.warn('mcp server unavailable', { server: this.spec.name, transport: this.transport, error: this.failure.message });
      if (forCaller) this.backoff.succeeded();
      else this.backoff.attemptFailed();
    } finally {
      deadline.dispose();
    }
  }

  private async list(connection: ServerConnection, signal: AbortSignal): Promise<void> {
    const generation = this.generation;
    const tasks = connection.client.getServerCapabilities()?.tasks?.requests?.tools?.call;
    const listing = await listAllTools(connection.client, {
      signal,
      timeoutMs: ms(this.options.settings.connectTimeoutSeconds),
      tasksSupported: tasks !== undefined,
      headerParameters: connection.headerParameters !== undefined,
    });
    connection.headerParameters?.clear();
    for (const entry of listing.tools) if (entry.headerParameters) connection.headerParameters?.set(entry.tool.name, entry.headerParameters);
    this.tools = listing.tools;
    this.skipped = listing.skipped;
    this.known = listing.tools.map((entry) => entry.tool.name);
    const ttlMs = listing.ttlMs ?? ms(this.options.settings.catalogTtlSeconds);
    this.expiresAt = generation === this.generation ? Date.now() + ttlMs : 0;
  }

  /** The server forgot our session: a new one at once, replacing the old (never two at a time). */
  private async renew(connection: ServerConnection): Promise<void> {
    if (this.connection === connection) {
      this.connection = undefined;
      this.failure = { message: 'the server ended the session; starting a new one', at: Date.now(), refused: false };
      this.brokeAt = Date.now();
      void connection.close();
    }
    await (this.connecting ?? this.connect());
  }

  private handleClosed(connection: ServerConnection | undefined): void {
    if (!connection || this.connection !== connection) return;
    this.fail(connection, 'the connection to the server closed');
  }

  /** A working session broke: reconnect in the background at once, then with backoff. */
  private fail(connection: ServerConnection, reason: string): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.failure = { message: reason, at: Date.now(), refused: false };
    this.brokeAt = Date.now();
    this.health = undefined;
    this.options.logger.warn('mcp server connection failed', { server: this.spec.name, transport: this.transport, error: reason });
    void connection.close();
    if (!this.options.shutdown.aborted) this.backoff.sessionBroke();
  }

  private requestContext(signal: AbortSignal): ServerRequestContext {
    const toolCalls = [...this.calls].map((call) => ({
      name: call.name,
      originalName: call.originalName,
      ...(call.caller === undefined ? {} : { caller: call.caller }),
    }));
    return { server: this.spec.name, toolCalls, signal };
  }

  private failureText(): string {
    if (!this.failure) return this.connecting ? 'connecting' : 'not connected yet';
    const wait = this.backoff.waitMs;
    const next = this.connecting ? 'reconnecting now' : wait > 0 ? `next attempt in ${Math.ceil(wait / 1000)} s` : 'reconnecting';
    return `${this.failure.message} (${next})`;
  }

  private startDeadline(): Deadline {
    return startDeadline(ms(this.options.settings.connectTimeoutSeconds), this.options.shutdown);
  }

  private describe(error: unknown, deadline: Deadline, timeoutWording: string): string {
    return deadline.timedOut ? `${timeoutWording} within ${ms(this.options.settings.connectTimeoutSeconds)} ms` : errorMessage(error);
  }
}

/** No session, after a brief wait for one; the message says why. */
export class ServerUnavailable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ServerUnavailable';
  }
}

function pause(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The server answered the connection with 401 or 403, or needs a login nobody has made yet. */
const CALLER_FAILURES: readonly unknown[] = ['mcp_caller_token_missing', 'mcp_token_exchange_refused'];
function failedForTheCaller(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (CALLER_FAILURES.includes((cause as { code?: unknown }).code)) return true;
  return false;
}

function refusedAccess(error: unknown): boolean {
  if (isUnauthorized(error)) return true;
  const status = (error as { code?: unknown }).code;
  return status === 401 || status === 403;
}
