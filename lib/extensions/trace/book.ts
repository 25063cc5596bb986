import type { JsonObject } from '../../core/json.ts';
import { copyJson, freezeObjects } from '../../core/state-copy.ts';
import type { Message } from '../../core/messages.ts';
import type { ToolDefinition } from '../../core/ports/tools.ts';
import { traceMessage, type TraceContents } from './shape.ts';
import { tracedTool, tracedToolJson } from './traced-tools.ts';
import { type TraceMessage, type TraceRound, type TraceTool, type TraceToolRun } from '../../core/turn-trace.ts';

/**
 * A turn's trace as it is kept in the conversation's state. Every round's request repeats the
 * whole history and the tools, so each distinct message and tool is kept once, in `messages` and
 * `tools`, and a round's request lists them by position (runs of positions as [first, last]):
 *
 *   messages  [system, user₁, assistant₁, tool₁, user₂, assistant₂, tool₂]
 *   round 1   request.messages [[0, 4]]            system, history, the question
 *   round 2   request.messages [[0, 6]]            the same, plus its call and result
 *
 * so a turn of many rounds costs its history once, not once per round. The earlier turns' messages
 * the turn was sent with are not copied at all: they are stored in those turns' own items, so
 * `history` only counts them and keeps a digest, and a request says where they go (`history`: their
 * position). GET .../trace reads them back from the earlier turns and checks the digest. Nor are
 * the turn's own messages, stored in its item with the trace: a request says how many of them it
 * sent and where (`own`, own-messages.ts). In the example above, where user₁ to tool₁ are an
 * earlier turn's, the pool then holds the system prompt alone, and round 2's request is
 * messages [0], history 1, own { at: 1, messages: 3 }: user₂, assistant₂, tool₂.
 */
export interface StoredTrace extends JsonObject {
  v: 1;
  turn: number;
  /** Model calls started in the turn: the next is round `calls + 1`. */
  calls: number;
  /** How texts were kept (trace.contents), so the history's digest can be computed again. */
  contents: TraceContents;
  /** The earlier turns' messages the requests included, by count and digest (sha256 of their trace JSON). */
  history?: { messages: number; digest: string };
  messages: TraceMessage[];
  tools: TraceTool[];
  rounds: StoredRound[];
  toolCalls: TraceToolRun[];
  /** Characters cut from long texts to keep within trace.maxBytes. */
  trimmedCharacters?: number;
  /** Rounds whose request was left out, then rounds left out entirely (the oldest first). */
  omittedRequests?: number;
  omittedRounds?: number;
}

export type StoredRound = Omit<TraceRound, 'request'> & { request?: { messages: IndexRanges; tools: IndexRanges; history?: number; own?: OwnMessages } };

/**
 * The turn's own first `messages` messages, which its item stores (own-messages.ts), go at position
 * `at` of the request's pooled messages (at or after `history`).
 */
export interface OwnMessages {
  at: number;
  messages: number;
}

/** A round as it is recorded: its request without the history, and where the history goes. */
export type RecordedRound = Omit<TraceRound, 'request'> & { request?: { messages: TraceMessage[]; tools: TraceTool[]; history?: number } };

/** Positions, with runs of three or more as [first, last]. */
type IndexRanges = Array<number | [number, number]>;

const TRACE_VERSION = 1;

export const emptyTrace = (turn: number, contents: TraceContents): StoredTrace => ({ v: TRACE_VERSION, turn, calls: 0, contents, messages: [], tools: [], rounds: [], toolCalls: [] });

/** The stored trace of `turn`, if the state holds one (a trace of an earlier turn is not it). */
export function storedTraceOf(state: JsonObject | undefined, turn: number): StoredTrace | undefined {
  if (!state || state.v !== TRACE_VERSION || state.turn !== turn || !Array.isArray(state.rounds)) return undefined;
  return state as StoredTrace;
}

/** A request's messages as a call records them: positions of those the request before sent too, then the others converted. */
export interface PendingMessages {
  sent: readonly Message[];
  repeated: number[];
  rest: TraceMessage[];
}

/** A round's request as a call records it, before its new messages and its tools are pooled. */
export type PendingRequest = { messages: PendingMessages; tools: TraceTool[]; history?: number; own?: OwnMessages };

/** A round's own fields, in the order they are stored: everything but its request. */
export type RoundFields = Omit<StoredRound, 'request'>;

/** The untrimmed trace of the turn under way, added to call by call. */
export class TraceBook {
  readonly trace: StoredTrace;
  private readonly messageIndex = new Map<string, number>();
  private readonly toolIndex = new Map<string, number>();
  /**
   * The messages of the request stored last, as they were sent and as positions in the pool: each
   * round's request repeats the one before and appends to it (run-loop.ts sends the history, then
   * the turn's messages, which it only appends to and never changes), so a request is recorded as
   * the positions of the messages it repeats at the same place, found by identity, and only the
   * messages after them are converted, serialized and pooled.
   */
  private lastStored: { sent: readonly Message[]; positions: readonly number[] } = { sent: [], positions: [] };
  /** The same for the tools, converted (their list is short: found by identity at the same place). */
  private lastTools: { sent: readonly ToolDefinition[]; traced: TraceTool[] } = { sent: [], traced: [] };
  /**
   * The position of a tool already in the pool (frozen, so it cannot change). A Map, not a
   * WeakMap: the book lives for one turn, its pool holds the same objects, and a Map is faster.
   */
  private readonly toolPositions = new Map<TraceTool, number>();
  /** The UTF-8 bytes of the JSON of every item in the four lists: the trace's size is kept as it grows, not measured again after every call. */
  private itemBytes = 0;
  /**
   * Rounds and tool runs added since the size was last asked for: measured together, with one
   * serialization, when it is (they are frozen, so what is measured then is what was added).
   */
  private unmeasured: object[] = [];
  /** Whether the trace changed since the last snapshot (a new book's has not been taken yet). */
  changedSinceSnapshot = true;
  /** The bytes of the trace's fields around its four lists, for the number of calls and the history they were counted with. */
  private frame?: { calls: number; history: StoredTrace['history']; bytes: number };

  /** Goes on from `base`: a paused turn's trace, taken up again with the turn. */
  constructor(base: StoredTrace) {
    // A JSON copy: structuredClone's generality cost more, at the start of every turn.
    this.trace = copyJson(base);
    // Most turns start a trace of their own: nothing to take up (this runs once a turn, rarely hot).
    const { messages, tools, rounds, toolCalls } = base;
    if (messages.length + tools.length + rounds.length + toolCalls.length > 0) this.takeUp();
  }

  /** A paused turn's trace: what it holds is frozen like everything added later, pooled and measured. */
  private takeUp(): void {
    const { messages, tools, rounds, toolCalls } = this.trace;
    for (const list of [messages, tools, rounds, toolCalls]) for (const item of list) freezeObjects(item);
    for (let index = 0; index < messages.length; index++) this.messageIndex.set(this.measured(JSON.stringify(messages[index])), index);
    for (let index = 0; index < tools.length; index++) this.toolIndex.set(this.measured(JSON.stringify(tools[index])), index);
    for (const item of rounds) this.unmeasured.push(item);
    for (const item of toolCalls) this.unmeasured.push(item);
  }

  /**
   * The bytes of the snapshot's JSON (what trace.maxBytes bounds), as `Buffer.byteLength(JSON.stringify(snapshot()))`
   * would count them: the lists' items were measured as they were added, and only the few fields
   * around them are serialized here, once per history (the number of calls is a whole number, written as String writes it).
   */
  size(): number {
    const { messages, tools, rounds, toolCalls, calls, history } = this.trace;
    if (this.unmeasured.length > 0) {
      // "[a,b,c]": the items' own bytes, two brackets and a comma between each two.
      this.itemBytes += Buffer.byteLength(JSON.stringify(this.unmeasured), 'utf8') - 1 - this.unmeasured.length;
      this.unmeasured = [];
    }
    if (this.frame === undefined || this.frame.history !== history) {
      this.frame = { calls, history, bytes: Buffer.byteLength(JSON.stringify({ ...this.trace, messages: [], tools: [], rounds: [], toolCalls: [] }), 'utf8') };
    } else if (this.frame.calls !== calls) {
      this.frame = { calls, history, bytes: this.frame.bytes + String(calls).length - String(this.frame.calls).length };
    }
    const commas = commasOf(messages) + commasOf(tools) + commasOf(rounds) + commasOf(toolCalls);
    return this.frame.bytes + this.itemBytes + commas;
  }

  private measured(json: string): string {
    this.itemBytes += Buffer.byteLength(json, 'utf8');
    return json;
  }

  /**
   * The trace as it stands, frozen: the book only ever adds to its lists, and what it adds is frozen
   * as it is added, so a copy of the lists is a snapshot that the state can share with every record
   * of the turn instead of copying the whole trace each time (lib/core/state-copy.ts).
   */
  snapshot(): StoredTrace {
    const { messages, tools, rounds, toolCalls, history } = this.trace;
    this.changedSinceSnapshot = false;
    freezeObjects(history);
    // The lists are copies nobody changes, not frozen: see freezeObjects.
    return Object.freeze({ ...this.trace, messages: messages.slice(), tools: tools.slice(), rounds: rounds.slice(), toolCalls: toolCalls.slice() }) as StoredTrace;
  }

  /** The number of a call that starts now: rounds are numbered in the order their calls start. */
  nextRound(): number {
    this.trace.calls += 1;
    this.changedSinceSnapshot = true;
    return this.trace.calls;
  }

  /**
   * A request's messages to record: the positions of those the request stored last sent at the same
   * place (the same object, or a system prompt of the same text), then the others converted.
   */
  requestMessages(messages: readonly Message[], contents: TraceContents): PendingMessages {
    const { sent, positions } = this.lastStored;
    const length = Math.min(messages.length, sent.length);
    let repeated = 0;
    while (repeated < length && sameMessage(sent[repeated], messages[repeated]!)) repeated++;
    const rest = new Array<TraceMessage>(messages.length - repeated);
    for (let index = repeated; index < messages.length; index++) rest[index - repeated] = traceMessage(messages[index]!, contents);
    return { sent: messages, repeated: positions.slice(0, repeated), rest };
  }

  /** traceTools, converting only the tools the round before did not offer at the same place. */
  traceTools(tools: readonly ToolDefinition[], contents: TraceContents): TraceTool[] {
    const last = this.lastTools;
    const traced = new Array<TraceTool>(tools.length);
    for (let index = 0; index < tools.length; index++) {
      const tool = tools[index]!;
      traced[index] = last.sent[index] === tool ? last.traced[index]! : tracedTool(tool, contents);
    }
    this.lastTools = { sent: tools, traced };
    return traced;
  }

  /** A round given with its request's messages converted: each is pooled by its JSON. */
  addRound(round: RecordedRound): void {
    const { request, ...fields } = round;
    this.addCall(fields, request && { ...request, messages: { sent: [], repeated: [], rest: request.messages } });
  }

  /**
   * A round from its own fields (taken as they are, and frozen: the caller gives them up) and its
   * request, stored after them with its messages and tools as positions in the pools.
   */
  addCall(fields: RoundFields, request: PendingRequest | undefined): void {
    const stored = fields as StoredRound;
    if (request) {
      const { sent, repeated, rest } = request.messages;
      const positions = repeated.concat(rest.map((message) => this.pooledMessage(message)));
      // A round given whole (addRound) has no messages as sent to compare the next request with.
      if (sent.length === positions.length) this.lastStored = { sent, positions };
      const messages = encodeRanges(positions);
      const tools = encodeRanges(request.tools.map((tool) => this.pooledTool(tool)));
      const kept: NonNullable<StoredRound['request']> = request.history === undefined ? { messages, tools } : { messages, tools, history: request.history };
      if (request.own) kept.own = request.own;
      stored.request = kept;
    }
    freezeObjects(stored);
    this.unmeasured.push(stored);
    this.changedSinceSnapshot = true;
    // Calls side by side (plan-execute's tasks) may end out of order: keep the rounds in order.
    const rounds = this.trace.rounds;
    if (rounds.length === 0 || rounds[rounds.length - 1]!.round < stored.round) rounds.push(stored);
    else {
      const at = rounds.findIndex((existing) => existing.round > stored.round);
      if (at === -1) rounds.push(stored);
      else rounds.splice(at, 0, stored);
    }
  }

  addToolRun(run: TraceToolRun): void {
    this.unmeasured.push(run);
    this.changedSinceSnapshot = true;
    this.trace.toolCalls.push(freezeObjects(run));
  }

  /**
   * A message's position in the pool, by its JSON: each request's new messages are converted anew
   * (requestMessages), so they are never the objects pooled before, but a resumed turn's may equal them.
   */
  private pooledMessage(message: TraceMessage): number {
    return this.pooled(message, this.trace.messages, this.messageIndex);
  }

  /** A tool's position in the pool: by identity (traceTools gives the round before's objects again), else by its JSON. */
  private pooledTool(tool: TraceTool): number {
    const known = this.toolPositions.get(tool);
    if (known !== undefined) return known;
    const position = this.pooled(tool, this.trace.tools, this.toolIndex, tracedToolJson(tool));
    this.toolPositions.set(tool, position);
    return position;
  }

  private pooled<T extends object>(item: T, pool: T[], index: Map<string, number>, json?: string): number {
    const key = json ?? JSON.stringify(item);
    let position = index.get(key);
    if (position === undefined) {
      // Frozen (shape.ts builds them so; what a caller gave addRound is frozen here): the position stays true.
      position = pool.push(freezeObjects(item)) - 1;
      index.set(this.measured(key), position);
    }
    return position;
  }
}

const commasOf = (list: readonly unknown[]): number => (list.length > 1 ? list.length - 1 : 0);

/**
 * The same message as the round before sent at that place: the same object, or a system prompt of
 * the same text (the loop makes the system message anew for every round).
 */
function sameMessage(before: Message | undefined, now: Message): boolean {
  return before === now || (before?.role === 'system' && now.role === 'system' && before.content === now.content);
}

export function encodeRanges(positions: readonly number[]): IndexRanges {
  const ranges: IndexRanges = [];
  for (let start = 0; start < positions.length; ) {
    let end = start;
    while (end + 1 < positions.length && positions[end + 1] === positions[end]! + 1) end++;
    if (end - start >= 2) ranges.push([positions[start]!, positions[end]!]);
    else for (let index = start; index <= end; index++) ranges.push(positions[index]!);
    start = end + 1;
  }
  return ranges;
}

export function decodeRanges(ranges: IndexRanges): number[] {
  return ranges.flatMap((range) => {
    if (typeof range === 'number') return [range];
    const [first, last] = range;
    return Array.from({ length: last - first + 1 }, (_, offset) => first + offset);
  });
}
