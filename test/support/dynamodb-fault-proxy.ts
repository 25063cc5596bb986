/**
 * A fault-injecting HTTP proxy for the DynamoDB wire protocol, to put between a DynamoDB client and
 * dynalite (or DynamoDB Local) and see what the code does when the store misbehaves.
 *
 *   client ──▶ proxy ──▶ target            every request is forwarded unchanged, unless a fault
 *          ◀──       ◀──                   matches it (by X-Amz-Target operation and body)
 *
 *   const proxy = await startFaultProxy({ target: table.endpoint });
 *   proxy.inject({ operation: 'PutItem', kind: 'lose-response' });
 *   const client = createProxyClient(proxy.endpoint, { requestTimeout: 500, maxAttempts: 2 });
 *   ...
 *   expect(proxy.log.succeeded('PutItem')).toBe(1);
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  createFaultSchedule,
  dynamoErrorBody,
  type Fault,
  type InjectedFault,
  INTERNAL_SERVER_ERROR,
  THROTTLE_TYPES,
} from './dynamodb-faults.ts';
import { createProxyLog, type ProxyLog, type ProxyLogEntry } from './dynamodb-proxy-log.ts';

export type { Fault, InjectedFault } from './dynamodb-faults.ts';
export type { ProxyLog, ProxyLogEntry } from './dynamodb-proxy-log.ts';

export interface FaultProxy {
  /** http://127.0.0.1:<port>, for the client's `endpoint`. */
  endpoint: string;
  inject(fault: Fault): InjectedFault;
  /** Removes every fault and empties the log: the proxy passes everything through again. */
  clear(): void;
  log: ProxyLog;
  /** Ends every connection, hanging ones included, and drops delayed requests not yet forwarded. */
  close(): Promise<void>;
}

interface UpstreamAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

// Hop-by-hop headers belong to one connection; the body is relayed whole with its own length.
const NOT_RELAYED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

export async function startFaultProxy(options: { target: string }): Promise<FaultProxy> {
  const target = new URL(options.target);
  const faults = createFaultSchedule();
  const log = createProxyLog();
  const upstreamAgent = new Agent({ keepAlive: true });
  const closing = new AbortController();

  const forward = (request: IncomingMessage, body: Buffer) =>
    new Promise<UpstreamAnswer>((resolve, reject) => {
      // Headers go unchanged, host included: the signature covers them, though emulators do not check it.
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
          agent: upstreamAgent,
        },
        (answer) => {
          readBody(answer).then((answerBody) => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: answerBody }), reject);
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestBody = await readBody(request);
    const body = parseJsonObject(requestBody);
    const operation = String(request.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    const fault = faults.take(operation, body ?? {});
    const entry: ProxyLogEntry = log.add({ operation, body, fault: fault?.kind, forwarded: false });

    if (fault?.kind === 'hang') {
      // Nothing is written: the client's own timeout, or close(), ends the connection.
      entry.clientOutcome = 'hang';
      return;
    }
    if (fault?.kind === 'reset') {
      resetClient(request, entry);
      return;
    }
    if (fault?.kind === 'throttle') {
      const error = fault.error ?? 'ProvisionedThroughputExceededException';
      answerError(response, entry, 400, THROTTLE_TYPES[error], 'Rate of requests exceeds the allowed throughput (injected).');
      return;
    }
    if (fault?.kind === 'delay') {
      // Aborted only by close(); a client that gave up meanwhile does not stop the late write.
      await sleep(fault.ms, undefined, { signal: closing.signal });
    }

    entry.forwarded = true;
    let answer: UpstreamAnswer;
    try {
      answer = await forward(request, requestBody);
    } catch {
      answerError(response, entry, 502, INTERNAL_SERVER_ERROR, 'The fault proxy could not reach its target.');
      return;
    }
    entry.upstreamStatus = answer.status;

    if (fault?.kind === 'lose-response') {
      if (fault.how === 'reset') resetClient(request, entry);
      else answerError(response, entry, 500, INTERNAL_SERVER_ERROR, 'Internal server error (injected after the request committed).');
      return;
    }
    const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !NOT_RELAYED.has(name)));
    response.writeHead(answer.status, { ...headers, 'content-length': answer.body.length });
    response.end(answer.body);
    entry.clientOutcome = answer.status;
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    inject: (fault) => faults.inject(fault),
    clear() {
      faults.clear();
      log.clear();
    },
    log,
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.closeAllConnections();
        upstreamAgent.destroy();
        server.close(() => resolve());
      }),
  };
}

async function readBody(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A TCP reset, not a clean close: the client sees ECONNRESET with no HTTP answer at all. */
function resetClient(request: IncomingMessage, entry: ProxyLogEntry): void {
  request.socket.resetAndDestroy();
  entry.clientOutcome = 'reset';
}

function answerError(response: ServerResponse, entry: ProxyLogEntry, status: number, type: string, message: string): void {
  const body = dynamoErrorBody(type, message);
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'content-length': Buffer.byteLength(body) });
  response.end(body);
  entry.clientOutcome = status;
}

export interface ProxyClientOptions {
  /** Milliseconds an attempt may take from sending to the response headers; unset: no limit. */
  requestTimeout?: number;
  /** Milliseconds to open the TCP connection; unset: no limit. */
  connectionTimeout?: number;
  /** Attempts per command, the first included (the DynamoDB client's default is 4). */
  maxAttempts?: number;
}

/**
 * A low-level client for `endpoint` (the proxy) with the given timeouts and attempts. The handler
 * options go in as a plain object, from which the client builds its own NodeHttpHandler: the
 * handler's package is only a transitive dependency here.
 */
export function createProxyClient(endpoint: string, options: ProxyClientOptions = {}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: options.maxAttempts,
    requestHandler: {
      requestTimeout: options.requestTimeout,
      connectionTimeout: options.connectionTimeout,
      // Since @smithy/node-http-handler 4.x an exceeded requestTimeout only logs a warning unless asked to throw.
      throwOnRequestTimeout: true,
    },
  });
}
