/**
 * The user's own accounts at per-user MCP servers (docs/mcp.md): a call to such a server pauses
 * the turn with a URL-mode question whose page is the provider's consent page, and the provider
 * sends the user back to the API's callback, which stores the connection. The page cannot see
 * that tab, so once the link was opened it asks `GET /connections` when the user comes back (the
 * window regains focus or becomes visible) and every few seconds while it is visible, for a
 * bounded time; when the question's server is listed, it answers the question itself. An API
 * without the route (404) is left alone: the user presses Done.
 *
 * The side panel lists the connections with a Disconnect button each (`DELETE /connections/{server}`).
 */
import * as api from './api.js';
import { h } from './dom.js';

const CHECK_EVERY_MS = 3000;
/** Checks after each opening of the link or return to the page: two minutes of polling at most. */
const CHECKS_PER_RETURN = 40;

/**
 * Watches for the user's connection to `server`; calls `connected()` once when it is listed.
 * Returns `stop()`: the question was answered some other way, or is no longer waited on.
 */
export function watchConnection(server, connected) {
  let stopped = false;
  let checking = false;
  let checksLeft = CHECKS_PER_RETURN;
  let timer;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    removeEventListener('focus', comeBack);
    document.removeEventListener('visibilitychange', comeBack);
  };

  async function check() {
    if (stopped || checking) return;
    checking = true;
    try {
      const listed = await api.connections();
      if (!stopped && listed.some((connection) => connection.server === server && isConnected(connection))) {
        stop();
        connected();
      }
    } catch (error) {
      // No such route: this API has no per-user connections, and only the user can say Done.
      if (error.status === 404) stop();
    } finally {
      checking = false;
    }
  }

  function schedule() {
    clearTimeout(timer);
    if (stopped || document.visibilityState !== 'visible' || checksLeft <= 0) return;
    timer = setTimeout(() => {
      checksLeft -= 1;
      void check().then(schedule);
    }, CHECK_EVERY_MS);
  }

  function comeBack() {
    if (stopped || document.visibilityState !== 'visible') return;
    checksLeft = CHECKS_PER_RETURN;
    void check().then(schedule);
  }

  addEventListener('focus', comeBack);
  document.addEventListener('visibilitychange', comeBack);
  schedule();
  return stop;
}

/** The side panel's list of connections; hidden when there are none or the API has no such route. */
export class ConnectionsPanel {
  constructor(element) {
    this.element = element;
  }

  async refresh() {
    let listed;
    try {
      listed = await api.connections();
    } catch {
      listed = [];
    }
    this.render(listed);
  }

  render(listed) {
    const items = listed.filter(isConnected).map((connection) => h('li', { 'data-server': connection.server },
      h('span', { class: 'connection-server', title: connectionTitle(connection) }, connection.server),
      h('button', { type: 'button', class: 'disconnect', onclick: () => void this.disconnect(connection.server) }, 'Disconnect')));
    this.element.replaceChildren(...(items.length > 0 ? [h('h2', {}, 'Connections'), h('ul', { class: 'connections' }, items)] : []));
    this.element.hidden = items.length === 0;
  }

  async disconnect(server) {
    if (!confirm(`Disconnect your account at ${server}? Its tools will ask you to connect again.`)) return;
    try {
      await api.disconnect(server);
    } catch (error) {
      alert(`${error.code}: ${error.message}`);
    }
    await this.refresh();
  }
}

/** An entry of GET /connections that stands for a stored connection (the API also lists its per-user servers not connected yet, with `connected: false`). */
const isConnected = (connection) => connection.connected !== false;

function connectionTitle(connection) {
  const scopeList = Array.isArray(connection.scopes) ? connection.scopes.join(' ') : connection.scopes;
  const scopes = scopeList ? `scopes: ${scopeList}` : undefined;
  const since = connection.connectedAt ? `connected ${new Date(connection.connectedAt).toLocaleString()}` : undefined;
  const until = connection.expiresAt ? `token until ${new Date(connection.expiresAt).toLocaleString()}` : undefined;
  return [since, scopes, until].filter(Boolean).join('; ');
}
