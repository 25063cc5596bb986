/**
 * The per-user connection routes (docs/users-own-accounts.md): the caller's connections (GET
 * /connections), forgetting one (DELETE /connections/{server}), and the page a provider sends a
 * person back to (GET /connections/{server}/callback). The callback is a browser's redirect and
 * carries no API credentials: its `state`, stored with the owner when the connection started and
 * good once, is what says whose account it is. It answers plain HTML that never shows a token;
 * every text in it is escaped (the provider's error_description included).
 */
import { NotFoundError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { UserConnectionsApi } from '../../core/ports/user-connections.ts';
import { errorResponse, json } from '../../http/errors.ts';
import type { HttpRequest, HttpResponse } from '../../http/types.ts';
import { refuseQuery } from './page-query.ts';

const noConnections = (server: string) =>
  new NotFoundError('connection_server_unknown', `There is no MCP server "${server}" that users connect to with their own account (auth.mode: per-user in agent.yml). GET /connections lists them.`);

export async function listConnections(connections: UserConnectionsApi | undefined, request: HttpRequest): Promise<HttpResponse> {
  refuseQuery(request.query, 'GET /connections');
  return json(200, { connections: connections ? await connections.listConnections(request.owner) : [] });
}

export async function deleteConnection(connections: UserConnectionsApi | undefined, request: HttpRequest, server: string): Promise<HttpResponse> {
  refuseQuery(request.query, 'DELETE /connections/{server}');
  if (!connections) throw noConnections(server);
  await connections.disconnect(request.owner, server);
  return { statusCode: 204, headers: {}, body: '' };
}

export async function connectionCallback(connections: UserConnectionsApi | undefined, request: HttpRequest, server: string, logger: Logger): Promise<HttpResponse> {
  const query = request.query ?? {};
  try {
    if (!connections) throw noConnections(server);
    await connections.completeConnection(server, {
      ...(query.code ? { code: query.code } : {}),
      ...(query.state ? { state: query.state } : {}),
      ...(query.error ? { error: query.error } : {}),
      ...(query.error_description ? { errorDescription: query.error_description } : {}),
    });
    return page(200, 'Account connected', `Your ${server} account is connected. Go back to the conversation and accept to continue; you can close this page.`);
  } catch (error) {
    // The status and the words the JSON API would give; the page shows them to the person.
    const answer = errorResponse(error, logger);
    const { code, message } = (JSON.parse(answer.body) as { error: { code: string; message: string } }).error;
    return page(answer.statusCode, 'Not connected', message, code);
  }
}

function page(statusCode: number, title: string, text: string, code?: string): HttpResponse {
  const body = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${code ? `<p><code>${escapeHtml(code)}</code></p>` : ''}</body></html>`,
  ].join('\n');
  return {
    statusCode,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      // Nothing on this page may load or run anything; it is never cached, and never framed.
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
    body,
  };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);
}
