/**
 * The redirect URI of a login from a terminal (RFC 8252 §7.3): a one-request HTTP server on the
 * loopback interface at the configured redirect URL. It hands the query to `complete` and shows
 * the person the outcome.
 */
import { createServer } from 'node:http';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

interface CallbackListener {
  /** Settles once a callback was handled: resolved on success, rejected with complete()'s error. */
  finished: Promise<void>;
  close(): Promise<void>;
}

function isLoopbackUrl(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname);
}

export async function listenForCallback(redirectUrl: string, complete: (query: URLSearchParams) => Promise<void>): Promise<CallbackListener> {
  const target = new URL(redirectUrl);
  if (!isLoopbackUrl(redirectUrl)) {
    throw new Error(`the redirect URL ${redirectUrl} is not on this machine's loopback interface (http://localhost:PORT/...), so nothing here can receive the callback`);
  }
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const finished = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Callers attach their handlers later; an early failure must not count as unhandled meanwhile.
  finished.catch(() => undefined);
  let handled = false;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', target);
    if (request.method !== 'GET' || url.pathname !== target.pathname || handled) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    handled = true;
    complete(url.searchParams).then(
      () => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('Authorized', 'The MCP agent service stored its tokens. You can close this window.'));
        settle.resolve();
      },
      (error: unknown) => {
        response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page('Not authorized', (error as Error).message));
        settle.reject(error);
      },
    );
  });
  const host = target.hostname === 'localhost' ? '127.0.0.1' : target.hostname.replace(/^\[|\]$/g, '');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(target.port || 80), host, () => resolve());
  });
  return {
    finished,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function page(title: string, text: string): string {
  const escape = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
  return `<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(text)}</p>\n`;
}
