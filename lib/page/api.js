/**
 * The service's HTTP API, as the page uses it. The API's address is the page's own origin, or the
 * `?api=` query parameter (a deployed stack's ApiUrl). Anyone can send a link with any `?api=`, so
 * the page talks to an origin other than its own only once the user has accepted it (asked once per
 * origin, remembered in localStorage), and never on load before that. An Authorization value (a
 * Cognito ID token) is kept per API origin, for the browser tab only (sessionStorage): a token set
 * for one API is never sent to another.
 */
const params = new URLSearchParams(location.search);

export const apiBase = (params.get('api') ?? '').replace(/\/+$/, '');

/** The API's origin: the page's own, or the one `?api=` names; undefined when `?api=` is not an http(s) URL. */
export const apiOrigin = originOf(apiBase);

function originOf(base) {
  if (!base) return location.origin;
  try {
    const address = new URL(base, location.href);
    return address.protocol === 'http:' || address.protocol === 'https:' ? address.origin : undefined;
  } catch {
    return undefined;
  }
}

const ACCEPTED_KEY = 'mcp-agent.accepted-apis';

function acceptedOrigins() {
  try {
    const list = JSON.parse(localStorage.getItem(ACCEPTED_KEY) ?? '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Whether the page may talk to the API without asking: its own origin, or one the user accepted. */
export const isAccepted = () => apiOrigin !== undefined && (apiOrigin === location.origin || acceptedOrigins().includes(apiOrigin));

/** Asks the user (once per origin) whether the page may talk to the API; true when it may. */
export function ensureAccepted() {
  if (apiOrigin === undefined) return false;
  if (isAccepted()) return true;
  const accepted = confirm(
    `This page was opened with ?api=${apiOrigin}, an API it has not talked to before.\n\n` +
      `Send your questions and conversations to ${apiOrigin}?\n\nAccept only if you know and trust that address.`,
  );
  if (accepted) localStorage.setItem(ACCEPTED_KEY, JSON.stringify([...acceptedOrigins(), apiOrigin]));
  return accepted;
}

// Earlier versions kept one token for every API under this key.
sessionStorage.removeItem('mcp-agent.authorization');
const AUTHORIZATION_KEY = `mcp-agent.authorization:${apiOrigin}`;
export const authorization = {
  get: () => sessionStorage.getItem(AUTHORIZATION_KEY) ?? '',
  set: (value) => (value ? sessionStorage.setItem(AUTHORIZATION_KEY, value) : sessionStorage.removeItem(AUTHORIZATION_KEY)),
};

/** An answer of the API that is not a success: the contract's {error: {code, message}}. */
class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Every request of the page: only to an accepted API, with that API's own token. */
function send(path, init = {}) {
  if (!ensureAccepted()) {
    const where = apiOrigin ?? `"${apiBase}" (not an http or https address)`;
    return Promise.reject(new ApiError(0, 'api_not_accepted', `Nothing was sent to ${where}: the page talks to an API only once you accept it.`));
  }
  const token = authorization.get();
  return fetch(`${apiBase}${path}`, { ...init, headers: { ...init.headers, ...(token ? { authorization: token } : {}) } });
}

const segment = (value) => encodeURIComponent(value);

async function failure(response) {
  let body;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const error = body?.error ?? {};
  return new ApiError(response.status, error.code ?? `http_${response.status}`, error.message ?? `The API answered ${response.status}.`);
}

async function getJson(path) {
  const response = await send(path, { headers: { accept: 'application/json' } });
  if (!response.ok) throw await failure(response);
  return response.json();
}

export const health = () => getJson('/health');

/** Every turn of a conversation, page after page (oldest first), with the last page's other fields. */
export async function conversation(conversationId) {
  let page = await getJson(`/conversations/${segment(conversationId)}?limit=100`);
  const turns = [...page.turns];
  while (page.nextToken) {
    page = await getJson(`/conversations/${segment(conversationId)}?limit=100&nextToken=${segment(page.nextToken)}`);
    turns.push(...page.turns);
  }
  return { ...page, turns };
}

export async function deleteConversation(conversationId) {
  const response = await send(`/conversations/${segment(conversationId)}`, { method: 'DELETE' });
  if (!response.ok) throw await failure(response);
}

/** The conversation's files (files: true): [] when files are off or the conversation is not stored yet. */
export async function files(conversationId) {
  try {
    return (await getJson(`/conversations/${segment(conversationId)}/files`)).files;
  } catch (error) {
    if (error.code === 'files_not_enabled' || error.code === 'conversation_not_found') return [];
    throw error;
  }
}

/** One file's text, as the API serves it (never as a page). */
export async function fileText(conversationId, name) {
  const response = await send(`/conversations/${segment(conversationId)}/files/${segment(name)}`);
  if (!response.ok) throw await failure(response);
  return response.text();
}

export const trace = (conversationId, turn) => getJson(`/conversations/${segment(conversationId)}/turns/${turn}/trace`);

/** Asks a question in a conversation; the turn arrives as Server-Sent Events, each handed to onEvent. */
export const ask = (conversationId, message, onEvent) => streamTurn(`/conversations/${segment(conversationId)}/messages`, { message }, onEvent);

/** Decides the calls a paused turn waits on; the resumed turn streams the same way. */
export const decide = (conversationId, decisions, onEvent) => streamTurn(`/conversations/${segment(conversationId)}/approvals`, { decisions }, onEvent);

/**
 * POSTs a turn route asking for an event stream, and reads it to its end. A request refused before
 * the turn starts (400, 409, 503) is answered with JSON instead: thrown as an ApiError.
 */
async function streamTurn(path, body, onEvent) {
  const response = await send(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    // A replayed turn may come back as JSON: hand it over as the stream's last event.
    onEvent({ event: 'turn-end', data: await response.json() });
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const event = parseEvent(block);
      if (event) onEvent(event);
    }
  }
}

/** One event block of the stream; comments (heartbeats) give nothing. */
function parseEvent(block) {
  let name = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { event: name, data: JSON.parse(data.join('\n')) };
}

/**
 * The caller's connections to per-user MCP servers: [{server, connected, scopes, expiresAt,
 * connectedAt}] (a server not connected yet: {server, connected: false}); no tokens.
 */
export const connections = async () => (await getJson('/connections')).connections ?? [];

/** Revokes and forgets the caller's connection to one server. */
export async function disconnect(server) {
  const response = await send(`/connections/${segment(server)}`, { method: 'DELETE' });
  if (!response.ok) throw await failure(response);
}
