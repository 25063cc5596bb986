/**
 * A local stand-in for Amazon Bedrock Runtime's Converse and ConverseStream, for tests: real HTTP on
 * 127.0.0.1, speaking HTTP/1.1 and cleartext HTTP/2 on one port (the SDK's Bedrock client talks
 * HTTP/2, NodeHttp2Handler). Node's cleartext HTTP/2 server has no HTTP/1 fallback (`allowHTTP1`
 * needs TLS), so each connection's first bytes choose: the HTTP/2 preface, or HTTP/1.1. Replies are scripted in order, or chosen by a router; every request is
 * recorded. It checks what Bedrock checks (bedrock-checks.ts, sigv4-check.ts) and answers a
 * violation as Bedrock does: a status, `x-amzn-errortype`, and `{"message"}`.
 *
 * A scripted Converse response serves both calls: as JSON for Converse, and for ConverseStream as
 * the AWS event stream Bedrock would send for it (stand-in-events.ts), encoded with the SDK's own
 * codec (@smithy/eventstream-codec).
 */
import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { Duplex } from 'node:stream';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { EventStreamCodec, type Message } from '@smithy/eventstream-codec';
import { converseProblem } from './bedrock-checks.ts';
import { eventsOf, type StandInEvent } from './bedrock-stand-in-events.ts';
import { signatureProblem, type SigningCredentials } from './sigv4-check.ts';

export const STAND_IN_REGION = 'us-east-1';
export const STAND_IN_CREDENTIALS: SigningCredentials = { accessKeyId: 'AKIDSTANDIN00000000', secretAccessKey: 'stand-in-secret-key-0123456789' };

/** A Converse response body (answered 200; as events for ConverseStream). */
export type ConverseReply = Record<string, unknown> & { output: unknown; stopReason: string };
/** An exception Bedrock answers with before any event: its name, message and status. */
export interface BedrockFailure {
  exception: string;
  message: string;
  status: number;
  /** E.g. `retry-after-ms`, to keep retry tests quick. */
  headers?: Record<string, string>;
}
/** A ConverseStream answered with exactly these events, then ended, cut off or left hanging. */
export interface ScriptedEvents {
  events: StandInEvent[];
  ending?: 'end' | 'reset' | 'hang';
  /** Wait this long before each event. */
  delayMs?: number;
}
/** No answer at all, ever (a timeout from the client's side). */
export interface ScriptedSilence {
  silence: true;
}
export type BedrockStep = ConverseReply | BedrockFailure | ScriptedEvents | ScriptedSilence;
/** Chooses the reply to a request: its body, its place in the order, and the request as recorded (the model id). */
export type BedrockRouter = (body: Record<string, unknown>, index: number, request: RecordedBedrockRequest) => BedrockStep | undefined;

export interface RecordedBedrockRequest {
  httpVersion: string;
  operation: 'converse' | 'converse-stream' | 'other';
  modelId: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** Set when the stand-in refused the request, with Bedrock's message. */
  rejected?: string;
}

export interface BedrockStandIn {
  /** For BEDROCK_ENDPOINT or the client's `endpoint`. */
  endpoint: string;
  requests: RecordedBedrockRequest[];
  close(): Promise<void>;
}

/** The environment that points the service at the stand-in for `model`: the provider, the endpoint, the region and the credentials it checks. */
export function standInEnvironment(standIn: BedrockStandIn, model: string): Record<string, string> {
  return {
    LLM_PROVIDER: 'bedrock',
    LLM_MODEL: model,
    BEDROCK_ENDPOINT: standIn.endpoint,
    AWS_REGION: STAND_IN_REGION,
    AWS_ACCESS_KEY_ID: STAND_IN_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: STAND_IN_CREDENTIALS.secretAccessKey,
  };
}

const codec = new EventStreamCodec((bytes) => Buffer.from(bytes).toString('utf8'), (text) => new Uint8Array(Buffer.from(text, 'utf8')));
const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0');
const PATH = /^\/model\/([^/]+)\/(converse|converse-stream)$/;

export async function startBedrockStandIn(script: BedrockStep[] | BedrockRouter): Promise<BedrockStandIn> {
  const requests: RecordedBedrockRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let index = 0;
  const handle = (request: IncomingMessage | Http2ServerRequest, anyResponse: ServerResponse | Http2ServerResponse) => {
    const response = anyResponse as unknown as AnyResponse;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const match = PATH.exec(request.url ?? '');
      const body = parseObject(raw.toString('utf8'));
      const recorded: RecordedBedrockRequest = {
        httpVersion: request.httpVersion,
        operation: match ? (match[2] as 'converse' | 'converse-stream') : 'other',
        modelId: match ? decodeURIComponent(match[1]!) : '',
        path: request.url ?? '',
        headers: { ...request.headers },
        body: body ?? {},
      };
      requests.push(recorded);
      const refuse = (status: number, exception: string, message: string) => {
        recorded.rejected = message;
        sendFailure(response, { status, exception, message });
      };
      if (!match || request.method !== 'POST') return refuse(404, 'UnknownOperationException', `The stand-in serves POST /model/{id}/converse and /converse-stream, not ${request.method} ${request.url}.`);
      const unsigned = signatureProblem({ method: request.method, path: request.url ?? '', headers: request.headers, body: raw }, STAND_IN_CREDENTIALS, { service: 'bedrock', region: STAND_IN_REGION });
      if (unsigned) return refuse(403, unsigned.startsWith('Missing') ? 'MissingAuthenticationTokenException' : 'InvalidSignatureException', unsigned);
      if (body === undefined) return refuse(400, 'SerializationException', 'The request body is not JSON.');
      const problem = converseProblem(body);
      if (problem) return refuse(400, 'ValidationException', problem);

      const step = Array.isArray(script) ? script[index] : script(body, index, recorded);
      index += 1;
      if (step === undefined) return refuse(500, 'InternalServerException', `Bedrock stand-in: the script is exhausted, no reply left for request #${index}.`);
      if (isFailure(step)) return sendFailure(response, step);
      if ((step as Partial<ScriptedSilence>).silence === true) return;
      if (recorded.operation === 'converse') {
        if (isEvents(step)) return refuse(500, 'InternalServerException', 'Bedrock stand-in: events were scripted for a Converse call.');
        response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': `stand-in-${index}` });
        response.end(JSON.stringify({ metrics: { latencyMs: 1 }, ...(step as ConverseReply) }));
        return;
      }
      writeEvents(response, isEvents(step) ? step : { events: eventsOf(step as ConverseReply) }, timers);
    });
  };
  const http1 = createHttp1Server(handle);
  const http2 = createHttp2Server(handle);
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', (first: Buffer) => {
      socket.pause();
      if (first.subarray(0, HTTP2_PREFACE.length).equals(HTTP2_PREFACE)) {
        http2.emit('connection', replaying(first, socket));
      } else {
        socket.unshift(first);
        http1.emit('connection', socket);
      }
      socket.resume();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      // HTTP/2 sessions stay open until their sockets go; the server closes only after them.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/**
 * The socket as a stream that first gives back the bytes already read. The HTTP/2 server reads a
 * net.Socket through its native handle, past anything put back with unshift; a plain Duplex it
 * reads through JavaScript.
 */
function replaying(first: Buffer, socket: Socket): Duplex {
  const duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  duplex.push(first);
  socket.on('data', (chunk: Buffer) => duplex.push(chunk));
  socket.on('end', () => duplex.push(null));
  socket.on('close', () => duplex.destroy());
  socket.on('error', (error) => duplex.destroy(error));
  return duplex;
}

/** What both HTTP versions' responses offer, as the stand-in uses it. */
interface AnyResponse {
  headersSent: boolean;
  destroyed: boolean;
  stream?: { close(code: number): void };
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array, callback: () => void): unknown;
  end(body?: string): unknown;
  destroy(): unknown;
}

function sendFailure(response: AnyResponse, failure: BedrockFailure): void {
  if (response.headersSent) return;
  response.writeHead(failure.status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${failure.exception}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    ...failure.headers,
  });
  response.end(JSON.stringify({ message: failure.message }));
}

function writeEvents(response: AnyResponse, step: ScriptedEvents, timers: Set<NodeJS.Timeout>): void {
  response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'stand-in-stream' });
  const frames = step.events.map(frameOf);
  const writeFrom = (position: number) => {
    if (position === frames.length) {
      if (step.ending === 'reset') {
        if (response.stream) response.stream.close(2);
        else response.destroy();
      }
      else if (step.ending !== 'hang') response.end();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (response.destroyed) return;
      response.write(frames[position]!, () => writeFrom(position + 1));
    }, step.delayMs ?? 0);
    timers.add(timer);
  };
  writeFrom(0);
}

/** One event as Bedrock frames it: an `event` of its type, or an `exception` of its kind. */
function frameOf(event: StandInEvent): Uint8Array {
  const string = (value: string) => ({ type: 'string' as const, value });
  const message: Message =
    'exception' in event
      ? {
          headers: { ':message-type': string('exception'), ':exception-type': string(event.exception), ':content-type': string('application/json') },
          body: Buffer.from(JSON.stringify({ message: event.message })),
        }
      : {
          headers: { ':message-type': string('event'), ':event-type': string(event.type), ':content-type': string('application/json') },
          body: Buffer.from(JSON.stringify(event.payload)),
        };
  return codec.encode(message);
}

const isFailure = (step: BedrockStep): step is BedrockFailure => typeof (step as Record<string, unknown>)['exception'] === 'string';
const isEvents = (step: BedrockStep): step is ScriptedEvents => Array.isArray((step as Record<string, unknown>)['events']);

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
