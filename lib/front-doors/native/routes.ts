import { InputError, NotFoundError } from '../../core/errors.ts';
import { routeFor } from '../../http/route-method.ts';

type RouteName = 'createConversation' | 'postMessage' | 'decideApprovals' | 'getConversation' | 'deleteConversation' | 'getTurnTrace' | 'health' | 'listNotes' | 'clearNotes' | 'deleteNote' | 'listFiles' | 'getFile' | 'listConnections' | 'deleteConnection' | 'connectionCallback';

export interface RouteMatch {
  route: RouteName;
  conversationId?: string;
  noteId?: string;
  /** The file's name, of a file's route. */
  fileName?: string;
  /** The turn number of a turn's route. */
  turn?: number;
  /** The MCP server of a connection's route. */
  server?: string;
}

/** path pattern → method → route. `{id}` matches one path segment, a conversation's id unless the route says otherwise. */
const ROUTES: Array<{ pattern: RegExp; methods: Partial<Record<string, RouteName>>; segment?: 'noteId' | 'fileName' | 'server' }> = [
  { pattern: /^\/conversations$/, methods: { POST: 'createConversation' } },
  { pattern: /^\/conversations\/([^/]+)\/messages$/, methods: { POST: 'postMessage' } },
  { pattern: /^\/conversations\/([^/]+)\/approvals$/, methods: { POST: 'decideApprovals' } },
  { pattern: /^\/conversations\/([^/]+)$/, methods: { GET: 'getConversation', DELETE: 'deleteConversation' } },
  { pattern: /^\/conversations\/([^/]+)\/turns\/([^/]+)\/trace$/, methods: { GET: 'getTurnTrace' } },
  { pattern: /^\/conversations\/([^/]+)\/files$/, methods: { GET: 'listFiles' } },
  { pattern: /^\/conversations\/([^/]+)\/files\/([^/]+)$/, methods: { GET: 'getFile' }, segment: 'fileName' },
  { pattern: /^\/health$/, methods: { GET: 'health' } },
  { pattern: /^\/memory$/, methods: { GET: 'listNotes', DELETE: 'clearNotes' } },
  { pattern: /^\/memory\/([^/]+)$/, methods: { DELETE: 'deleteNote' }, segment: 'noteId' },
  { pattern: /^\/connections$/, methods: { GET: 'listConnections' } },
  { pattern: /^\/connections\/([^/]+)$/, methods: { DELETE: 'deleteConnection' }, segment: 'server' },
  { pattern: /^\/connections\/([^/]+)\/callback$/, methods: { GET: 'connectionCallback' }, segment: 'server' },
];

/** The provider's redirect back after a person connected an account: a browser's, without API credentials (the state proves the owner). */
export const CONNECTION_CALLBACK_PATH = /^\/connections\/[^/]+\/callback\/?$/;

export function matchRoute(method: string, rawPath: string): RouteMatch {
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
  for (const { pattern, methods, segment } of ROUTES) {
    const found = pattern.exec(path);
    if (!found) continue;
    const route = routeFor(methods, method, path);
    if (found[1] === undefined) return { route };
    if (segment === 'noteId') return { route, noteId: decodePathSegment(found[1], 'note') };
    if (segment === 'server') return { route, server: decodePathSegment(found[1], 'server') };
    const conversationId = decodePathSegment(found[1], 'conversation');
    if (segment === 'fileName') return { route, conversationId, fileName: decodePathSegment(found[2]!, 'file') };
    return found[2] === undefined ? { route, conversationId } : { route, conversationId, turn: turnNumber(found[2]) };
  }
  throw new NotFoundError('route_not_found', `There is no ${method} ${path}. The API has POST /conversations, POST /conversations/{conversationId}/messages, POST /conversations/{conversationId}/approvals, GET and DELETE /conversations/{conversationId}, GET /conversations/{conversationId}/turns/{turn}/trace, GET /conversations/{conversationId}/files, GET /conversations/{conversationId}/files/{name}, GET and DELETE /memory, DELETE /memory/{noteId}, GET /connections, DELETE /connections/{server}, GET /connections/{server}/callback, and GET /health.`);
}

function turnNumber(segment: string): number {
  if (!/^[1-9]\d{0,14}$/.test(segment)) {
    throw new InputError('invalid_turn', `"${segment}" is not a turn number: turns are numbered 1, 2, 3, ... (the "turn" of a turn result).`);
  }
  return Number(segment);
}

function decodePathSegment(segment: string, kind: 'conversation' | 'note' | 'file' | 'server'): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    if (kind === 'file') throw new InputError('invalid_file_name', `"${segment}" is not a valid URL-encoded file name: use a name from GET /conversations/{conversationId}/files, URL-encoded.`);
    if (kind === 'server') throw new NotFoundError('connection_server_unknown', `"${segment}" is not a valid URL-encoded server name: use a server from GET /connections.`);
    if (kind === 'note') throw new InputError('invalid_note_id', `"${segment}" is not a valid URL-encoded note id: use an id from GET /memory.`);
    throw new InputError('invalid_conversation_id', `"${segment}" is not a valid URL-encoded conversation id: use 1 to 128 letters, digits, "_" or "-".`);
  }
}
