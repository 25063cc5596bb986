/**
 * The service's HTTP API, as the page uses it. The API's address is the page's own origin, or the
 * `?api=` query parameter (a deployed stack's ApiUrl); an Authorization value (a Cognito ID token)
 * is sent when one is set in the settings, and kept for the browser tab only.
 */
const params = new URLSearchParams(location.search);

export const apiBase = (params.get('api') ?? '').replace(/\/+$/, '');

const AUTHORIZATION_KEY = 'mcp-agent.authorization';
export const authorization = {
  get: () => sessionStorage.getItem(AUTHORIZATION_KEY) ?? '',
  set: (value) => (value ? sessionStorage.setItem(AUTHORIZATION_KEY, value) : sessionStorage.removeItem(AUTHORIZATION_KEY)),
};

/** An answer of the API that is not a success: the contract's {error: {code, message}}. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function headers(extra = {}) {
  const token = authorization.get();
  return { ...extra, ...(token ? { authorization: token } : {}) };
}

const url = (path) => `${apiBase}${path}`;
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
  const response = await fetch(url(path), { headers: headers({ accept: 'application/json' }) });
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
  const response = await fetch(url(`/conversations/${segment(conversationId)}`), { method: 'DELETE', headers: headers() });
  if (!response.ok) throw await failure(response);
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
  const response = await fetch(url(path), {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json', accept: 'text/event-stream' }),
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
