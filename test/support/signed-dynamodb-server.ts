/**
 * A local HTTP server that answers as DynamoDB's JSON protocol does, and refuses (403
 * InvalidSignatureException) every request whose SigV4 signature does not hold for its
 * credentials, service (`dynamodb` unless told) and region (sigv4-check.ts, written from the specification).
 * Each request takes the next scripted answer; without one left, `{}` with 200.
 *
 *   const server = await startSignedDynamoServer({ credentials, region: 'eu-west-1' });
 *   server.answer({ status: 500, body: { __type: '…#InternalServerError', message: 'boom' } }, 'hang');
 *   …
 *   expect(server.requests.map((request) => request.operation)).toEqual(['PutItem', 'PutItem']);
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureProblem } from './sigv4-check.ts';

export interface ReceivedRequest {
  operation: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** Date.now() when it arrived. */
  at: number;
  /** The client's port: the same for requests over one kept-alive connection. */
  remotePort: number;
  /** Why the signature was refused; undefined when it held. */
  signatureProblem?: string;
}

/**
 * A scripted answer; 'hang': never answered (until the client gives up or the server closes);
 * 'cut': a 200 whose connection is lost halfway through its body.
 */
export type ScriptedAnswer = 'cut' | { status?: number; body?: unknown; headers?: Record<string, string>; /** Sent as it is instead of body's JSON (an empty answer, a proxy's HTML page). */ raw?: string } | 'hang';

export interface SignedDynamoServer {
  endpoint: string;
  requests: ReceivedRequest[];
  /** Queues answers for the next requests, in order. */
  answer(...answers: ScriptedAnswer[]): void;
  /** Answers every request after the queued ones with this (default: `{}` with 200). */
  answerAlways(answer: ScriptedAnswer): void;
  close(): Promise<void>;
}

export const dynamoError = (type: string, message: string, fields: Record<string, unknown> = {}) => ({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message, ...fields });

/** How far from the server's clock a request's x-amz-date may be, as AWS allows. */
const SIGNATURE_TIME_WINDOW_MS = 5 * 60_000;

/**
 * `clockAheadMs`: the server's clock runs this far ahead of this machine's; its Date header says
 * so, and it refuses a request signed more than 5 minutes from its time ("Signature expired").
 */
export async function startSignedDynamoServer(options: { credentials: { accessKeyId: string; secretAccessKey: string }; region: string; service?: string; clockAheadMs?: number }): Promise<SignedDynamoServer> {
  const requests: ReceivedRequest[] = [];
  const queued: ScriptedAnswer[] = [];
  let always: ScriptedAnswer = { status: 200, body: {} };
  const hanging = new Set<ServerResponse>();

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const target = String(request.headers['x-amz-target'] ?? '');
    const serverNow = Date.now() + (options.clockAheadMs ?? 0);
    const problem = signatureProblem({ method: request.method ?? '', path: request.url ?? '/', headers: request.headers, body: raw }, options.credentials, { service: options.service ?? 'dynamodb', region: options.region });
    requests.push({ operation: target.slice(target.indexOf('.') + 1), headers: request.headers, body: JSON.parse(raw.toString('utf8') || '{}'), at: Date.now(), remotePort: request.socket.remotePort ?? 0, ...(problem ? { signatureProblem: problem } : {}) });
    if (problem) {
      send(response, 403, { __type: 'com.amazon.coral.service#InvalidSignatureException', message: problem });
      return;
    }
    const signedAt = signingTime(String(request.headers['x-amz-date'] ?? ''));
    if (Math.abs(signedAt - serverNow) > SIGNATURE_TIME_WINDOW_MS) {
      const text = `Signature expired: ${request.headers['x-amz-date']} is now earlier than ${new Date(serverNow - SIGNATURE_TIME_WINDOW_MS).toISOString()}`;
      send(response, 400, { __type: 'com.amazon.coral.service#InvalidSignatureException', message: text });
      return;
    }
    const answer = queued.shift() ?? always;
    if (answer === 'hang') {
      hanging.add(response);
      response.on('close', () => hanging.delete(response));
      return;
    }
    if (answer === 'cut') {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': 100 });
      response.write('{"Item":{"pk":{"S":"a', () => response.socket?.destroy());
      return;
    }
    send(response, answer.status ?? 200, answer.body ?? {}, answer.headers, answer.raw);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  let requestCount = 0;
  function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, raw?: string) {
    const text = raw ?? JSON.stringify(body);
    requestCount += 1;
    const date = new Date(Date.now() + (options.clockAheadMs ?? 0)).toUTCString();
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `request-${requestCount}`, 'content-length': Buffer.byteLength(text), date, ...headers }).end(text);
  }

  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    answer: (...answers) => void queued.push(...answers),
    answerAlways: (answer) => void (always = answer),
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** x-amz-date (`20260101T120000Z`) as milliseconds. */
function signingTime(amzDate: string): number {
  const found = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  return found ? Date.UTC(Number(found[1]), Number(found[2]) - 1, Number(found[3]), Number(found[4]), Number(found[5]), Number(found[6])) : Number.NaN;
}
