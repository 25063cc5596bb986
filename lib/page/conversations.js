/**
 * The conversations this browser started or opened, newest first. The API has no list of a
 * caller's conversations (a table Query per conversation is all it needs), so the page keeps the
 * ids it used, per API address, in localStorage, and reopens them with GET /conversations/{id}.
 * Another browser, or a cleared storage, does not see them; the conversations themselves stay.
 */
import { apiBase } from './api.js';

const KEY = `mcp-agent.conversations:${apiBase || location.origin}`;
const MAX_KEPT = 100;

export function listConversations() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Adds or refreshes an entry; the first question names it. */
export function rememberConversation(id, title) {
  const existing = listConversations().find((entry) => entry.id === id);
  const entry = { id, title: existing?.title || title || id, updatedAt: new Date().toISOString() };
  save([entry, ...listConversations().filter((other) => other.id !== id)].slice(0, MAX_KEPT));
}

export function forgetConversation(id) {
  save(listConversations().filter((entry) => entry.id !== id));
}

/** Ids the service accepts: letters, digits, "_" and "-", at most 128. */
export const newConversationId = () => `chat-${crypto.randomUUID()}`;

function save(list) {
  localStorage.setItem(KEY, JSON.stringify(list));
}
