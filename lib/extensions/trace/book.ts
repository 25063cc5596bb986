import type { JsonObject } from '../../core/json.ts';
import { copyJson, deepFreeze } from '../../core/state-copy.ts';
import type { Message } from '../../core/messages.ts';
import type { ToolDefinition } from '../../core/ports/tools.ts';
import { traceMessages, traceTools, type TraceContents } from './shape.ts';
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
 * position). GET .../trace reads them back from the earlier turns and checks the digest.
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

export type StoredRound = Omit<TraceRound, 'request'> & { request?: { messages: IndexRanges; tools: IndexRanges; history?: number } };

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

/** The untrimmed trace of the turn under way, added to call by call. */
export class TraceBook {
  readonly trace: StoredTrace;
  private readonly messageIndex = new Map<string, number>();
  private readonly toolIndex = new Map<string, number>();
  /**
   * The request of the round before, as it was sent and as it was converted: each round's request
   * repeats the one before and appends to it (run-loop.ts sends the history, then the turn's
   * messages, which it only appends to and never changes), so the messages and tools it repeats
   * are converted and serialized once, on their first round, and found by identity after that.
   */
  private lastMessages: { sent: readonly Message[]; traced: TraceMessage[] } = { sent: [], traced: [] };
  private lastTools: { sent: readonly ToolDefinition[]; traced: TraceTool[] } = { sent: [], traced: [] };
  /**
   * The position of a message or tool already in a pool (frozen, so it cannot change). A Map, not a
   * WeakMap: the book lives for one turn, its pools hold the same objects, and a Map is faster.
   */
  private readonly pooledPositions = new Map<object, number>();
  /** The UTF-8 bytes of the JSON of every item in the four lists: the trace's size is kept as it grows, not measured again after every call. */
  private itemBytes = 0;

  /** Goes on from `base`: a paused turn's trace, taken up again with the turn. */
  constructor(base: StoredTrace) {
    // A JSON copy: structuredClone's generality cost more, at the start of every turn.
    this.trace = copyJson(base);
    // Frozen like everything added later, so that snapshots share only frozen parts.
    for (const list of [this.trace.messages, this.trace.tools, this.trace.rounds, this.trace.toolCalls]) list.forEach((item) => deepFreeze(item));
    this.trace.messages.forEach((message, index) => this.messageIndex.set(this.measured(JSON.stringify(message)), index));
    this.trace.tools.forEach((tool, index) => this.toolIndex.set(this.measured(JSON.stringify(tool)), index));
    for (const item of [...this.trace.rounds, ...this.trace.toolCalls]) this.measured(JSON.stringify(item));
  }

  /**
   * The bytes of the snapshot's JSON (what trace.maxBytes bounds), as `Buffer.byteLength(JSON.stringify(snapshot()))`
   * would count them: the lists' items were measured as they were added, and only the few fields
   * around them are serialized here.
   */
  size(): number {
    const { messages, tools, rounds, toolCalls } = this.trace;
    const frame = JSON.stringify({ ...this.trace, messages: [], tools: [], rounds: [], toolCalls: [] });
    const commas = [messages, tools, rounds, toolCalls].reduce((sum, list) => sum + Math.max(list.length - 1, 0), 0);
    return Buffer.byteLength(frame, 'utf8') + this.itemBytes + commas;
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
    deepFreeze(history);
    return Object.freeze({ ...this.trace, messages: Object.freeze([...messages]), tools: Object.freeze([...tools]), rounds: Object.freeze([...rounds]), toolCalls: Object.freeze([...toolCalls]) }) as StoredTrace;
  }

  /** The number of a call that starts now: rounds are numbered in the order their calls start. */
  nextRound(): number {
    this.trace.calls += 1;
    return this.trace.calls;
  }

  /** traceMessages, converting only the messages the round before did not send at the same place. */
  traceMessages(messages: readonly Message[], contents: TraceContents): TraceMessage[] {
    const last = this.lastMessages;
    const traced = messages.map((message, index) => (sameMessage(last.sent[index], message) ? last.traced[index]! : traceMessages([message], contents)[0]!));
    this.lastMessages = { sent: messages, traced };
    return traced;
  }

  /** traceTools, converting only the tools the round before did not offer at the same place. */
  traceTools(tools: readonly ToolDefinition[], contents: TraceContents): TraceTool[] {
    const last = this.lastTools;
    const traced = tools.map((tool, index) => (last.sent[index] === tool ? last.traced[index]! : traceTools([tool], contents)[0]!));
    this.lastTools = { sent: tools, traced };
    return traced;
  }

  addRound(round: RecordedRound): void {
    const { request, ...rest } = round;
    const stored: StoredRound = request
      ? {
          ...rest,
          request: {
            messages: encodeRanges(request.messages.map((message) => this.pooled(message, this.trace.messages, this.messageIndex))),
            tools: encodeRanges(request.tools.map((tool) => this.pooled(tool, this.trace.tools, this.toolIndex))),
            ...(request.history === undefined ? {} : { history: request.history }),
          },
        }
      : rest;
    // Calls side by side (plan-execute's tasks) may end out of order: keep the rounds in order.
    deepFreeze(stored);
    this.measured(JSON.stringify(stored));
    const at = this.trace.rounds.findIndex((existing) => existing.round > round.round);
    if (at === -1) this.trace.rounds.push(stored);
    else this.trace.rounds.splice(at, 0, stored);
  }

  addToolRun(run: TraceToolRun): void {
    this.measured(JSON.stringify(run));
    this.trace.toolCalls.push(deepFreeze(run));
  }

  private pooled<T extends object>(item: T, pool: T[], index: Map<string, number>): number {
    const known = this.pooledPositions.get(item);
    if (known !== undefined) return known;
    const key = JSON.stringify(item);
    let position = index.get(key);
    if (position === undefined) {
      position = pool.push(item) - 1;
      index.set(this.measured(key), position);
    }
    // Frozen, whether it was pooled now or equals one pooled before: the position stays true.
    this.pooledPositions.set(deepFreeze(item), position);
    return position;
  }
}

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
