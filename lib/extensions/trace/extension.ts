import { AgentError, errorMessage } from '../../core/errors.ts';
import { copyJson } from '../../core/state-copy.ts';
import type { TraceToolRun } from '../../core/turn-trace.ts';
import type { ModelRequest } from '../../core/ports/model.ts';
import type { HistoryMessage, Message } from '../../core/messages.ts';
import type { AgentExtension, TurnContext } from '../../agent/extension-api/extension.ts';
import { emptyTrace, storedTraceOf, TraceBook, type PendingRequest, type RoundFields, type StoredTrace } from './book.ts';
import { fitTrace } from './fit.ts';
import { historyDigest } from './history.ts';
import { positionOf, startsWith } from './own-messages.ts';
import { isoTime } from './iso-time.ts';
import { traceMessages, traceReply, type TraceContents } from './shape.ts';

/**
 * The turn trace (agent.yml `trace`): every model call of the turn (the exact request after every
 * extension changed it, the reply, its timing and token usage) and every tool call's timing, kept
 * in the conversation's state with the turn, so GET /conversations/{id}/turns/{turn}/trace and the
 * chat page's inspector can show it. A new turn starts a new trace, so each stored turn holds its
 * own; a paused turn's trace goes on when the turn is taken up again. It runs innermost (last), so
 * it sees the request as it is sent, and times only the call.
 */

/** Where the trace lives in the conversation's state. */
export const TRACE_STATE = 'trace';

interface TraceSettings {
  enabled: boolean;
  maxBytes: number;
  contents: TraceContents;
}

export function traceExtension(settings: TraceSettings): AgentExtension {
  // Off: nothing is recorded, and an earlier turn's trace is not carried into the new turn's state.
  if (!settings.enabled) {
    return {
      name: TRACE_STATE,
      turnStart(turn) {
        turn.state = {};
      },
    };
  }
  const { contents, maxBytes } = settings;
  // A frozen snapshot: records share it rather than copy it (the book's lists only ever grow).
  const publish = (turn: TurnContext) => {
    const book = bookOf(turn);
    turn.state = fitTrace(book.snapshot(), maxBytes, book.size());
  };

  return {
    name: TRACE_STATE,
    turnStart(turn) {
      const base = storedTraceOf(turn.state, turn.turn) ?? emptyTrace(turn.turn, contents);
      turn.scratch.base = base;
      turn.scratch.book = new TraceBook(base);
      turn.scratch.calls = [];
      publish(turn);
    },
    async aroundModelCall(request, next, turn) {
      const book = bookOf(turn);
      const round = book.nextRound();
      const started = Date.now();
      let firstDeltaMs: number | undefined;
      const onDelta = request.onDelta;
      const sent: ModelRequest = onDelta
        ? { ...request, onDelta: (delta) => { firstDeltaMs ??= Date.now() - started; onDelta(delta); } }
        : request;
      const startedAt = isoTime(started);
      // Before the book is read: it may be recorded again here (ownReferences).
      const referOwn = ownReferences(turn, contents);
      const recordedIn = bookOf(turn);
      const recorded = recordedRequest(request, turn, recordedIn, contents, referOwn);
      callsOf(turn).push({ round, request });
      // A call under way while the book was recorded again (calls side by side) is recorded in the new one.
      const add = (done: RoundFields) => {
        const book = bookOf(turn);
        book.addCall(done, book === recordedIn ? recorded : recordedRequest(request, turn, book, contents, false));
      };
      // The round's fields in the order they are stored, built as they are (this runs for every model call).
      const fields = (): RoundFields => {
        const timed: RoundFields = { round, startedAt, durationMs: Date.now() - started };
        if (firstDeltaMs !== undefined) timed.firstDeltaMs = firstDeltaMs;
        return timed;
      };
      try {
        const reply = await next(sent);
        const done = fields();
        done.response = traceReply(reply, contents);
        // A copy: the round is frozen, and the reply is the loop's.
        done.usage = { ...reply.usage };
        add(done);
        return reply;
      } catch (error) {
        // As the loop counts it: whatever a model client throws is a model that failed.
        const failed = fields();
        failed.error = { code: error instanceof AgentError ? error.code : 'model_unavailable', message: errorMessage(error) };
        add(failed);
        throw error;
      } finally {
        publish(turn);
      }
    },
    async aroundToolCall(call, next, turn) {
      const started = Date.now();
      let ok = false;
      try {
        const output = await next();
        ok = output.ok;
        return output;
      } finally {
        // Published with the next model call or at the turn's end: a write per tool call is not worth it.
        const run: TraceToolRun = { id: call.id, name: call.name, ok, durationMs: Date.now() - started };
        // Copies, as everything the book keeps: it freezes them (shape.ts).
        if (call.policy) run.policy = copyJson(call.policy);
        bookOf(turn).addToolRun(run);
      }
    },
    turnEnd(result, turn) {
      // A paused turn's trace goes on in another request, whose draft the turn's strategy may
      // rearrange: it keeps copies. So does a turn whose messages are no longer what was referenced.
      const paused = result.stopReason === 'approval_required' || result.stopReason === 'input_required';
      const seen = turn.scratch.ownSeen as HistoryMessage[] | undefined;
      if (seen && (paused || !startsWith(turn.messages, seen))) withCopies(turn, contents);
      // The calls the tool policy refused never ran: the trace shows them with the decision.
      const book = bookOf(turn);
      const refused = result.toolCalls.filter((call) => call.policy?.decision === 'deny');
      if (refused.length > 0) {
        const traced = new Set(book.trace.toolCalls.map((run) => run.id));
        for (const call of refused) if (!traced.has(call.id)) book.addToolRun({ id: call.id, name: call.name, ok: false, durationMs: 0, policy: copyJson(call.policy) });
      }
      // A turn that ends with its answer has published everything with its last model call.
      if (book.changedSinceSnapshot) publish(turn);
    },
  };
}

function bookOf(turn: TurnContext): TraceBook {
  return turn.scratch.book as TraceBook;
}

/** A model call of this request and what it sent (to record it again: withCopies). */
interface RecordedCall {
  round: number;
  request: ModelRequest;
}

const callsOf = (turn: TurnContext) => turn.scratch.calls as RecordedCall[];

/**
 * Whether this call's request may refer to the turn's own messages (own-messages.ts): not once
 * the turn's draft was rearranged under an earlier reference (then every round so far is recorded
 * again with copies, and the rest keep copies), and not while an answer may still be sent back
 * for not validating (the loop takes it and the feedback out of the stored messages afterwards).
 */
function ownReferences(turn: TurnContext, contents: TraceContents): boolean {
  if (turn.scratch.copiesOnly === true) return false;
  const seen = turn.scratch.ownSeen as HistoryMessage[] | undefined;
  if (seen && !startsWith(turn.messages, seen)) {
    withCopies(turn, contents);
    return false;
  }
  return true;
}

/** The request as it is kept: the earlier turns' messages and the turn's own by reference when it holds them as read. */
function recordedRequest(request: ModelRequest, turn: TurnContext, book: TraceBook, contents: TraceContents, referOwn: boolean): PendingRequest {
  const tools = book.traceTools(request.tools, contents);
  let messages: readonly Message[] = request.messages;
  let history: number | undefined;
  // The loop sends the very objects it read from the earlier turns, all of them, in order.
  const at = positionOf(messages, turn.history);
  if (at !== undefined) {
    const digest = (turn.scratch.historyDigest ??= historyDigest(traceMessages(turn.history, contents))) as string;
    // A resumed turn whose history reads differently now keeps this round whole.
    book.trace.history ??= { messages: turn.history.length, digest };
    if (book.trace.history.digest === digest) {
      messages = [...messages.slice(0, at), ...messages.slice(at + turn.history.length)];
      history = at;
    }
  }
  const own = turn.messages;
  const ownAt = referOwn && request.responseFormat === undefined ? positionOf(messages, own, history ?? 0) : undefined;
  if (ownAt === undefined) return { messages: book.requestMessages(messages, contents), tools, ...(history === undefined ? {} : { history }) };
  const seen = turn.scratch.ownSeen as HistoryMessage[] | undefined;
  if (!seen || own.length > seen.length) turn.scratch.ownSeen = own.slice();
  const pooled = [...messages.slice(0, ownAt), ...messages.slice(ownAt + own.length)];
  return { messages: book.requestMessages(pooled, contents), tools, ...(history === undefined ? {} : { history }), own: { at: ownAt, messages: own.length } };
}

/**
 * Records this request's rounds again, each with copies of the turn's messages it sent, from the
 * trace the turn started with (a paused turn's is kept with copies): for a turn whose messages were
 * rearranged after rounds referred to them, or that pauses. Rare, and then once.
 */
function withCopies(turn: TurnContext, contents: TraceContents): void {
  const before = bookOf(turn);
  const base = turn.scratch.base as StoredTrace;
  const book = new TraceBook(base);
  turn.scratch.book = book;
  const ended = new Map(before.trace.rounds.map((round) => [round.round, round]));
  for (const call of callsOf(turn)) {
    // A call still under way has no round yet: it is recorded in this book when it ends (aroundModelCall).
    const round = ended.get(call.round);
    if (!round) continue;
    const { request: _request, ...fields } = round;
    book.addCall(fields, recordedRequest(call.request, turn, book, contents, false));
  }
  for (const run of before.trace.toolCalls.slice(base.toolCalls.length)) book.addToolRun(run);
  book.trace.calls = before.trace.calls;
  delete turn.scratch.ownSeen;
  turn.scratch.copiesOnly = true;
}
