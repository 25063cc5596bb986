/**
 * The turn inspector: each round's exact model request (every message with its role, tool calls
 * with their ids, tool messages with their tool_call_id; the tools offered) and the model's
 * response, with timings and token usage, from GET /conversations/{id}/turns/{turn}/trace.
 */
import { formatMs, h, pretty } from './dom.js';

export function renderTrace(trace) {
  const rounds = trace.rounds ?? [];
  const tokens = rounds.reduce((sum, round) => ({ prompt: sum.prompt + (round.usage?.promptTokens ?? 0), completion: sum.completion + (round.usage?.completionTokens ?? 0) }), { prompt: 0, completion: 0 });
  const modelTime = rounds.reduce((sum, round) => sum + round.durationMs, 0);
  const notes = [
    trace.trimmedCharacters ? `${trace.trimmedCharacters} characters of long texts were cut to keep the trace within trace.maxBytes (each cut is marked).` : undefined,
    trace.omittedRequests ? `The requests of the ${trace.omittedRequests} oldest rounds were left out to keep within trace.maxBytes.` : undefined,
    trace.omittedRounds ? `${trace.omittedRounds} rounds were left out entirely.` : undefined,
  ].filter(Boolean);
  return h('div', { class: 'trace' },
    h('p', { class: 'trace-summary' }, `${rounds.length} round${rounds.length === 1 ? '' : 's'} · model ${formatMs(modelTime)} · ${tokens.prompt} prompt + ${tokens.completion} completion tokens`),
    notes.map((note) => h('p', { class: 'trace-note' }, note)),
    trace.toolCalls?.length ? toolRuns(trace.toolCalls) : undefined,
    rounds.map(renderRound));
}

function toolRuns(runs) {
  return h('details', { class: 'tool-runs' },
    h('summary', {}, `Tool calls that ran (${runs.length})`),
    h('table', {},
      h('thead', {}, h('tr', {}, h('th', {}, 'id'), h('th', {}, 'tool'), h('th', {}, 'result'), h('th', {}, 'time'))),
      h('tbody', {}, runs.map((run) => h('tr', {}, h('td', {}, h('code', {}, run.id)), h('td', {}, run.name), h('td', {}, run.ok ? 'ok' : 'failed'), h('td', {}, formatMs(run.durationMs)))))));
}

function renderRound(round) {
  const timing = [
    formatMs(round.durationMs),
    round.firstDeltaMs === undefined ? undefined : `first delta after ${formatMs(round.firstDeltaMs)}`,
    round.usage ? `${round.usage.promptTokens} prompt + ${round.usage.completionTokens} completion tokens` : undefined,
    `started ${new Date(round.startedAt).toLocaleTimeString()}`,
  ].filter(Boolean).join(' · ');
  return h('section', { class: 'round', 'data-round': round.round },
    h('h3', {}, `Round ${round.round}`, h('span', { class: 'timing' }, timing)),
    round.request ? request(round.request) : h('p', { class: 'trace-note' }, 'Request left out (trace.maxBytes).'),
    round.response ? h('div', { class: 'response' }, h('h4', {}, 'Response'), message(round.response)) : undefined,
    round.error ? h('div', { class: 'error' }, h('strong', {}, round.error.code), ` ${round.error.message}`) : undefined,
    h('details', { class: 'raw' }, h('summary', {}, 'JSON'), h('pre', {}, JSON.stringify(round, null, 2))));
}

function request({ messages, tools, historyUnavailable }) {
  return h('div', { class: 'request' },
    h('h4', {}, `Request: ${messages.length} message${messages.length === 1 ? '' : 's'}, ${tools.length} tool${tools.length === 1 ? '' : 's'}`),
    historyUnavailable ? h('p', { class: 'trace-note' }, `It was also sent ${historyUnavailable} messages of earlier turns that are no longer stored; they are left out here.`) : undefined,
    h('ol', { class: 'messages' }, messages.map((entry) => h('li', {}, message(entry)))),
    tools.length ? h('details', { class: 'tools' },
      h('summary', {}, `Tools: ${tools.map((tool) => tool.function.name).join(', ')}`),
      tools.map((tool) => h('div', { class: 'tool' },
        h('code', { class: 'tool-name' }, tool.function.name),
        tool.function.description ? h('p', {}, tool.function.description) : undefined,
        tool.function.parameters ? h('pre', {}, pretty(tool.function.parameters)) : undefined))) : undefined);
}

/** One message in the Chat Completions shape, its ids spelt as the wire spells them. */
function message(entry) {
  const fields = [];
  if (entry.role === 'tool') fields.push(field('tool_call_id', entry.tool_call_id), field('name', entry.name));
  const extra = Object.entries(entry).filter(([key]) => !['role', 'content', 'tool_calls', 'tool_call_id', 'name', 'extra_content', 'provider_data'].includes(key));
  return h('div', { class: `trace-message ${entry.role}` },
    h('div', { class: 'message-head' }, h('span', { class: 'role' }, entry.role), fields),
    extra.map(([key, value]) => h('details', { class: 'provider-field' }, h('summary', {}, key), h('pre', {}, typeof value === 'string' ? value : pretty(value)))),
    entry.content === null || entry.content === undefined ? h('p', { class: 'empty' }, 'content: null') : h('pre', { class: 'content' }, entry.content),
    (entry.tool_calls ?? []).map((call) => h('div', { class: 'wire-call' },
      h('div', { class: 'message-head' }, h('span', { class: 'role' }, 'tool_call'), field('id', call.id), field('name', call.function.name)),
      h('pre', { class: 'arguments' }, pretty(call.function.arguments)))));
}

const field = (name, value) => h('span', { class: 'field' }, h('span', { class: 'field-name' }, name), ' ', h('code', {}, value));
