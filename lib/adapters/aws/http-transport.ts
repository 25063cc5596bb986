/**
 * How the JSON client (json-client.ts) sends one request and reads its whole answer: the global
 * `fetch`, or node:http/https with kept-alive connections. The signal ends the request (the
 * caller's abort, or the attempt's timeout); any other failure is the network's (refused, reset,
 * lost), and the client retries it.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpAnswer {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
}

export type HttpTransport = (url: URL, request: { headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<HttpAnswer>;

export const fetchTransport = (send: typeof fetch): HttpTransport => async (url, request) => {
  const response = await send(url, { method: 'POST', headers: request.headers, body: request.body, signal: request.signal });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

/**
 * node:http(s), one kept-alive agent per client, as the SDK's own request handler; a new
 * connection not made within `connectTimeoutMs` fails with a TimeoutError (the SDK's
 * connectionTimeout).
 */
export function nodeTransport(options: { connectTimeoutMs?: number } = {}): HttpTransport {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return (url, { headers, body, signal }) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const secure = url.protocol === 'https:';
      const request = (secure ? httpsRequest : httpRequest)(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: secure ? agents.https : agents.http }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const get = (name: string) => {
            const value = response.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
          };
          resolve({ status: response.statusCode ?? 0, headers: { get }, text });
        });
      });
      const onAbort = () => request.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      request.on('close', () => signal.removeEventListener('abort', onAbort));
      request.on('error', reject);
      if (options.connectTimeoutMs) {
        const connectTimeoutMs = options.connectTimeoutMs;
        request.on('socket', (socket) => {
          if (!socket.connecting) return;
          const timer = setTimeout(() => request.destroy(Object.assign(new Error(`no connection to ${url.host} within ${connectTimeoutMs} ms`), { name: 'TimeoutError' })), connectTimeoutMs);
          socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(timer));
          socket.once('close', () => clearTimeout(timer));
        });
      }
      request.end(body);
    });
}
