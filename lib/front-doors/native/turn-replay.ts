import type { StoredTurn } from '../../agent/agent-api.ts';
import { shownArguments } from '../../agent/loop/tool-plan.ts';
import type { AssistantMessage, ToolMessage } from '../../core/messages.ts';
import type { TurnResult } from '../../core/turn.ts';
import { finalEventData } from '../../http/sse-events.ts';
import { comparePositions, type StreamPosition } from './stream-ids.ts';

/** An event rebuilt from a stored turn: `position` is its id; an event without one follows `after`. */
interface ReplayedEvent {
  name: string;
  data: unknown;
  position?: StreamPosition;
  after: StreamPosition;
}

/**
 * The events of a stored turn that come after position `last` (the client's Last-Event-ID), in
 * the order and with the ids the live stream gave them (live-positions.ts), and whether
 * they end the stream. Round by round, from the turn's messages and its result:
 *
 *   round-start   each model reply after the question is one round
 *   reasoning-delta, text-delta   the reply's reasoning and text, each whole, no id
 *   tool-call     each call of the reply, in its order
 *   tool-result   each answer stored, in the calls' order (an id while no earlier call waits)
 *   approval-required, elicitation-required   a paused turn's waiting calls, no id
 *   turn-end / error   a paused or complete turn's result (id `end`)
 *
 * Events without an id that follow `last` come again: the client cannot say it saw them. Rounds
 * are rebuilt only when each round left one stored reply (the react loop); otherwise (plan-execute,
 * an MCP server's sampling took rounds) the round numbers of the stored turn are not known, and a
 * resumed stream gets only the turn's end, rather than events with made-up numbers.
 */
export function replayAfter(stored: StoredTurn, last: StreamPosition): { events: ReplayedEvent[]; ended: boolean } {
  const all = [...roundEvents(stored), ...endEvents(stored)];
  const events = all.filter((event) => (event.position ? comparePositions(event.position, last) > 0 : comparePositions(event.after, last) >= 0));
  return { events, ended: stored.status !== 'running' };
}

function roundEvents(stored: StoredTurn): ReplayedEvent[] {
  const question = stored.messages.findLastIndex((message) => message.role === 'user');
  const steps = stored.messages.slice(question + 1);
  const replies = steps.filter((message): message is AssistantMessage => message.role === 'assistant');
  if (replies.length !== stored.result.rounds) return [];
  const records = new Map(stored.result.toolCalls.map((record) => [record.id, record]));
  const answers = new Map(steps.flatMap((message): Array<[string, ToolMessage]> => (message.role === 'tool' ? [[message.toolCallId, message]] : [])));
  const events: ReplayedEvent[] = [];
  replies.forEach((reply, index) => {
    const round = index + 1;
    let after: StreamPosition = { kind: 'round', round };
    events.push({ name: 'round-start', data: { round }, position: after, after });
    if (reply.reasoning?.text) events.push({ name: 'reasoning-delta', data: { round, text: reply.reasoning.text }, after });
    if (reply.content) events.push({ name: 'text-delta', data: { round, text: reply.content }, after });
    // Calls answered without a record never ran and were never announced (over the round limit, out of time).
    const announced = reply.toolCalls.map((call, at) => ({ call, at: at + 1 })).filter(({ call }) => records.has(call.id) || !answers.has(call.id));
    for (const { call, at } of announced) {
      const record = records.get(call.id);
      after = { kind: 'call', round, index: at };
      events.push({ name: 'tool-call', data: { round, id: call.id, name: record?.name ?? call.name, arguments: record ? record.arguments : shownArguments(call.arguments) }, position: after, after });
    }
    let waiting = false;
    for (const { call, at } of announced) {
      const answer = answers.get(call.id);
      if (!answer) {
        waiting = true;
        continue;
      }
      const record = records.get(call.id);
      const data = { round, id: call.id, name: record?.name ?? answer.name, ok: record?.ok ?? false, durationMs: record?.durationMs ?? 0, content: answer.content };
      if (waiting) {
        events.push({ name: 'tool-result', data, after });
        continue;
      }
      after = { kind: 'result', round, index: at };
      events.push({ name: 'tool-result', data, position: after, after });
    }
  });
  return events;
}

function endEvents(stored: StoredTurn): ReplayedEvent[] {
  if (stored.status === 'running') return [];
  const result = stored.result as TurnResult;
  const end: StreamPosition = { kind: 'end' };
  const events: ReplayedEvent[] = [];
  // Hung on the end: a pause is announced just before it, so it comes again with any resume.
  if (stored.status === 'paused' && result.pendingApprovals?.length) events.push({ name: 'approval-required', data: { round: result.rounds, pendingApprovals: result.pendingApprovals }, after: end });
  if (stored.status === 'paused' && result.pendingElicitations?.length) events.push({ name: 'elicitation-required', data: { round: result.rounds, pendingElicitations: result.pendingElicitations }, after: end });
  const final = finalEventData({ result });
  events.push({ name: final.name, data: final.data, position: end, after: end });
  return events;
}
