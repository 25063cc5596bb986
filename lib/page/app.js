/**
 * The chat page: ask, watch the turn stream in, decide approvals, answer servers' questions (and
 * resume by itself once the user connected an account), reopen conversations, inspect turns. Plain modules, no build step; everything it knows comes from the HTTP API (api.js).
 */
import * as api from './api.js';
import { ConnectionsPanel, watchConnection } from './connections.js';
import { forgetConversation, listConversations, newConversationId, rememberConversation } from './conversations.js';
import { h } from './dom.js';
import { FilesPanel, renderFile } from './files.js';
import { renderTrace } from './inspector.js';
import { ProgressPanel } from './progress.js';
import { TurnView } from './turn-view.js';

const element = (id) => document.getElementById(id);
const transcript = element('transcript');
const question = element('question');
const send = element('send');
const progress = new ProgressPanel(element('progress'));
const files = new FilesPanel(element('files'), (name) => void openFile(name));
const connections = new ConnectionsPanel(element('connections'));

/** The conversation on screen (undefined: a new one, whose id is made when it is first asked). */
let conversationId;
/** Its turns on screen. */
let views = [];
let busy = false;

const handlers = {
  onDecide: decide,
  onInspect: inspect,
  watchConnection: (server, connected) => watchConnection(server, () => {
    connected();
    void connections.refresh();
  }),
};

function setBusy(value) {
  busy = value;
  send.disabled = value;
  document.body.classList.toggle('busy', value);
}

/**
 * Runs a turn's stream into its view; a refusal before it starts (409, 503, ...) is shown in it.
 * Returns whether any event came.
 */
async function run(view, stream) {
  setBusy(true);
  let streamed = false;
  try {
    await stream((event) => {
      streamed = true;
      view.handle(event);
      progress.handle(event);
      files.handle(event);
      scrollDown();
    });
  } catch (error) {
    view.failed(error.code ?? 'network_error', error.message);
  } finally {
    setBusy(false);
    renderConversations();
    question.focus();
  }
  return streamed;
}

async function ask() {
  const text = question.value.trim();
  if (!text || busy || !connect()) return;
  const id = conversationId ?? newConversationId();
  rememberConversation(id, text.slice(0, 80));
  if (id !== conversationId) select(id);
  question.value = '';
  for (const earlier of views) earlier.superseded();
  const view = new TurnView(text, handlers);
  views.push(view);
  transcript.append(view.element);
  scrollDown();
  await run(view, (onEvent) => api.ask(conversationId, text, onEvent));
}

/** `answered`: what the view asked ({approvals, elicitations}), asked again when the answer is refused. */
async function decide(view, decisions, answered) {
  view.approvals.classList.add('sending');
  const streamed = await run(view, (onEvent) => api.decide(conversationId, decisions, onEvent));
  view.approvals.classList.remove('sending');
  // Refused before the turn went on (an answer that does not fit the form: 400): ask again.
  if (!streamed) view.waitFor(answered.approvals, answered.elicitations);
  // An answered connect link may have added a connection.
  void connections.refresh();
}

async function inspect(turn) {
  const panel = element('inspector');
  const body = element('inspector-body');
  element('inspector-title').textContent = `Turn ${turn}`;
  body.replaceChildren(h('p', { class: 'hint' }, 'Loading the trace…'));
  panel.hidden = false;
  try {
    body.replaceChildren(renderTrace(await api.trace(conversationId, turn)));
  } catch (error) {
    body.replaceChildren(h('p', { class: 'error' }, h('strong', {}, error.code ?? 'error'), ` ${error.message}`));
  }
}

/** A file of the conversation in the side panel, as text. */
async function openFile(name) {
  const panel = element('inspector');
  const body = element('inspector-body');
  element('inspector-title').textContent = name;
  body.replaceChildren(h('p', { class: 'hint' }, 'Loading the file…'));
  panel.hidden = false;
  try {
    const text = await api.fileText(conversationId, name);
    body.replaceChildren(renderFile({ name, text, description: files.files.find((file) => file.name === name)?.description }));
  } catch (error) {
    body.replaceChildren(h('p', { class: 'error' }, h('strong', {}, error.code ?? 'error'), ` ${error.message}`));
  }
}

async function open(id) {
  if (busy) return;
  select(id);
  views = [];
  transcript.replaceChildren(h('p', { class: 'hint' }, 'Loading…'));
  try {
    const stored = await api.conversation(id);
    views = stored.turns.map((turn) => TurnView.stored(turn, handlers));
    transcript.replaceChildren(...views.map((view) => view.element));
    progress.reset({ todos: stored.todos ?? [], plan: stored.plan ?? null });
    files.reset(await api.files(id));
    scrollDown();
  } catch (error) {
    if (error.code === 'conversation_not_found') forgetConversation(id);
    transcript.replaceChildren(h('p', { class: 'error' }, h('strong', {}, error.code ?? 'error'), ` ${error.message}`));
    renderConversations();
  }
}

function startNew() {
  if (busy) return;
  select(undefined);
  views = [];
  transcript.replaceChildren();
  progress.reset();
  files.reset();
  question.focus();
}

async function remove() {
  if (!conversationId || busy || !confirm('Delete this conversation from the service?')) return;
  try {
    await api.deleteConversation(conversationId);
  } catch (error) {
    if (error.code !== 'conversation_not_found') return alert(`${error.code}: ${error.message}`);
  }
  forgetConversation(conversationId);
  startNew();
}

/** The conversation on screen, in the title, the address (#id: a reload reopens it) and the list. */
function select(id) {
  conversationId = id;
  element('inspector').hidden = true;
  element('title').textContent = id ? listConversations().find((entry) => entry.id === id)?.title ?? id : 'New conversation';
  element('delete').hidden = !id;
  history.replaceState(null, '', id ? `#${encodeURIComponent(id)}` : location.pathname + location.search);
  renderConversations();
}

function renderConversations() {
  element('conversations').replaceChildren(...listConversations().map((entry) =>
    h('li', { class: entry.id === conversationId ? 'current' : undefined },
      h('button', { type: 'button', title: entry.id, onclick: () => open(entry.id) }, entry.title))));
}

function scrollDown() {
  transcript.scrollTop = transcript.scrollHeight;
}

/**
 * Whether the page may talk to its API, asking the user first for an origin they have not
 * accepted (api.js); once accepted, the status shows the API's model and tools.
 */
function connect() {
  if (api.isAccepted()) return true;
  if (!api.ensureAccepted()) {
    showNotConnected();
    return false;
  }
  element('connect').hidden = true;
  void showHealth();
  void connections.refresh();
  return true;
}

/** An API the user has not accepted: say which, and that nothing was sent to it. */
function showNotConnected() {
  const status = element('status');
  status.textContent = api.apiOrigin
    ? `Not connected to ${api.apiOrigin}: the page asks before it sends anything to an API it has not used.`
    : `?api=${api.apiBase} is not an http or https address: nothing is sent.`;
  status.classList.add('degraded');
  element('connect').hidden = !api.apiOrigin;
}

async function showHealth() {
  const status = element('status');
  try {
    const health = await api.health();
    const model = health.model.offlineStandIn ? 'offline demo model' : health.model.configured ? health.model.name : 'no model configured';
    status.textContent = `${model} · ${health.tools} tools`;
    status.classList.toggle('degraded', health.status !== 'ok');
  } catch (error) {
    status.textContent = `${error.code ?? 'unreachable'}: ${error.message}`;
    status.classList.add('degraded');
  }
}

element('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  void ask();
});
question.addEventListener('keydown', (event) => {
  // Enter sends; Shift+Enter is a new line; Enter that confirms an input method's candidate is neither.
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void ask();
  }
});
element('new-conversation').addEventListener('click', startNew);
element('delete').addEventListener('click', () => void remove());
element('close-inspector').addEventListener('click', () => (element('inspector').hidden = true));
element('api').value = api.apiBase || location.origin;
element('authorization').value = api.authorization.get();
element('authorization').addEventListener('change', (event) => api.authorization.set(event.target.value.trim()));
element('settings').addEventListener('submit', (event) => event.preventDefault());

const fromAddress = decodeURIComponent(location.hash.slice(1));
element('connect').addEventListener('click', () => {
  if (connect() && fromAddress) void open(fromAddress);
});
renderConversations();
// Nothing is sent on load to an API the user has not accepted: a link can name any ?api=.
if (api.isAccepted()) {
  if (fromAddress) void open(fromAddress);
  void showHealth();
  void connections.refresh();
} else {
  showNotConnected();
}
question.focus();
