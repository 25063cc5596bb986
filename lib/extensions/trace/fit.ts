import { decodeRanges, encodeRanges, type StoredRound, type StoredTrace } from './book.ts';

/**
 * Keeping a trace within trace.maxBytes (its JSON, as it is stored in the turn's item). In order,
 * until it fits:
 *
 *   1. cut every long text to one common length, the longest first (ids, names and roles are never
 *      cut), each with a marker saying how much was left out;
 *   2. leave out the requests of the oldest rounds (their timings, usage and replies stay);
 *   3. leave out the oldest rounds entirely.
 *
 * Each text is cut at most once per fit from the untrimmed trace, so the marker's count is exact.
 * `size` is the trace's JSON size when the caller knows it (TraceBook.size), saving a serialization
 * of the whole trace after every model call when it fits, as it usually does.
 */
export function fitTrace(trace: StoredTrace, maxBytes: number, size = sizeOf(trace)): StoredTrace {
  if (size <= maxBytes) return trace;
  let candidate = trace;
  for (let omitted = 0; omitted <= trace.rounds.length; omitted++) {
    candidate = omitted === 0 ? trace : withoutRequests(trace, omitted);
    if (sizeOf(cutTexts(candidate, 0).trace) <= maxBytes) return longestFitting(candidate, maxBytes);
  }
  const noRequests = candidate;
  for (let dropped = 1; dropped <= noRequests.rounds.length; dropped++) {
    const fewer = withoutRounds(noRequests, dropped);
    if (sizeOf(cutTexts(fewer, 0).trace) <= maxBytes) return longestFitting(fewer, maxBytes);
  }
  // Not even an empty trace of this turn fits: keep only what says so.
  return { ...cutTexts(withoutRounds(noRequests, noRequests.rounds.length), 0).trace, toolCalls: [] };
}

export const sizeOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The largest common length of texts at which the trace fits (it fits at 0). */
function longestFitting(trace: StoredTrace, maxBytes: number): StoredTrace {
  let fits = 0;
  let over = longestText(trace) + 1;
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2);
    if (sizeOf(cutTexts(trace, middle).trace) <= maxBytes) fits = middle;
    else over = middle;
  }
  return cutTexts(trace, fits).trace;
}

/** Keys whose strings are names, not texts: never cut. */
const NAMES = new Set(['role', 'id', 'type', 'name', 'tool_call_id', 'startedAt', 'code', 'v']);

const MARKER = /…\[(\d+) more characters not kept in the trace\]$/;

/** A copy of the trace with every text longer than `cap` cut to it. */
function cutTexts(trace: StoredTrace, cap: number): { trace: StoredTrace; characters: number } {
  let characters = 0;
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === 'string') {
      if (key !== undefined && NAMES.has(key)) return value;
      const cut = cutText(value, cap);
      characters += cut.characters;
      return cut.text;
    }
    if (Array.isArray(value)) return value.map((element) => walk(element, undefined));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, walk(inner, name)]));
    }
    return value;
  };
  // The pools and the replies hold the texts; positions, timings and usage are numbers.
  const cut = { ...trace, messages: walk(trace.messages, undefined), tools: walk(trace.tools, undefined), rounds: walk(trace.rounds, undefined) } as StoredTrace;
  if (characters > 0) cut.trimmedCharacters = (trace.trimmedCharacters ?? 0) + characters;
  return { trace: cut, characters };
}

/** A text cut to `cap` characters with a marker, unless the marker would save nothing. */
function cutText(text: string, cap: number): { text: string; characters: number } {
  const found = MARKER.exec(text);
  const body = found ? text.slice(0, found.index) : text;
  const earlier = found ? Number(found[1]) : 0;
  // Never split a surrogate pair: the half left would not be text.
  const end = cap > 0 && /[\uD800-\uDBFF]/.test(body[cap - 1] ?? '') ? cap - 1 : cap;
  const characters = body.length - end;
  const marker = `…[${earlier + characters} more characters not kept in the trace]`;
  if (characters <= marker.length) return { text, characters: 0 };
  return { text: body.slice(0, end) + marker, characters };
}

function longestText(trace: StoredTrace): number {
  let longest = 0;
  JSON.stringify([trace.messages, trace.tools, trace.rounds], (_key, value: unknown) => {
    if (typeof value === 'string' && value.length > longest) longest = value.length;
    return value;
  });
  return longest;
}

/** The trace without the requests of its `count` oldest rounds, and without what only they used. */
function withoutRequests(trace: StoredTrace, count: number): StoredTrace {
  let omitted = 0;
  const rounds = trace.rounds.map((round, index): StoredRound => {
    if (index >= count || !round.request) return round;
    omitted += 1;
    const { request: _request, ...rest } = round;
    return rest;
  });
  return pruned({ ...trace, rounds, omittedRequests: (trace.omittedRequests ?? 0) + omitted });
}

function withoutRounds(trace: StoredTrace, count: number): StoredTrace {
  return pruned({ ...trace, rounds: trace.rounds.slice(count), omittedRounds: (trace.omittedRounds ?? 0) + Math.min(count, trace.rounds.length) });
}

/** Only the messages and tools some request still lists, renumbered. */
function pruned(trace: StoredTrace): StoredTrace {
  const keep = (pool: unknown[], lists: number[][]) => {
    const used = [...new Set(lists.flat())].sort((left, right) => left - right);
    const renumber = new Map(used.map((position, index) => [position, index]));
    return { pool: used.map((position) => pool[position]), renumber };
  };
  const requests = trace.rounds.map((round) => round.request && { messages: decodeRanges(round.request.messages), tools: decodeRanges(round.request.tools) });
  const messages = keep(trace.messages, requests.map((request) => request?.messages ?? []));
  const tools = keep(trace.tools, requests.map((request) => request?.tools ?? []));
  const rounds = trace.rounds.map((round, index): StoredRound => {
    const request = requests[index];
    if (!request) return round;
    return {
      ...round,
      request: {
        ...round.request,
        messages: encodeRanges(request.messages.map((position) => messages.renumber.get(position)!)),
        tools: encodeRanges(request.tools.map((position) => tools.renumber.get(position)!)),
      },
    };
  });
  return { ...trace, messages: messages.pool as StoredTrace['messages'], tools: tools.pool as StoredTrace['tools'], rounds };
}
