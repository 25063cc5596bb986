import type { ToolMessage } from '../../core/messages.ts';
import type { SamplingRequest } from '../../core/ports/tools.ts';
import type { PendingApproval, PendingElicitation, ToolCallRecord } from '../../core/turn.ts';
import type { AwaitedInput } from './call-input.ts';
import type { LoopEvent } from './loop-events.ts';
import { answered, runToolCalls, type AnsweredCall, type ToolRunContext } from './run-tools.ts';
import { toolText, turnOutputChars, withinTurnOutput } from './tool-messages.ts';
import { plannedName, type PlannedCall } from './tool-plan.ts';
import type { TurnDraft } from '../turn/turn-draft.ts';

/** What a failed call's message keeps past tools.maxTurnOutputChars. */
const FAILURE_KEPT_CHARS = 500;

/** Durable record of a running turn: written before a round's calls that may change something start, and after they end. */
export interface Journal {
  /** Throws when the record could not be written. */
  record(draft: TurnDraft): Promise<void>;
}

interface ToolRoundContext {
  draft: TurnDraft;
  round: number;
  toolRun: ToolRunContext;
  journal?: Journal;
  onEvent?: (event: LoopEvent) => void;
}

export type ToolRoundOutcome =
  | { kind: 'answered' }
  /** Calls wait for a person: approvals (of calls or of their sampling), and questions their servers asked. */
  | { kind: 'waiting'; pending: PendingApproval[]; elicitations: PendingElicitation[] }
  /** The record before the calls failed: they did not run, and were answered so. */
  | { kind: 'not-recorded'; cause: unknown };

/**
 * Answers the calls of the draft's last round as planned. Refused calls get their text at once;
 * calls to run run (concurrently, bounded), and when any of them may change something the draft is
 * recorded before they start and after they end, so no side effect is ever forgotten; calls that
 * need approval are left waiting, and so are calls whose server asked for what only a person can
 * give (call-input.ts). Tool messages and records end up in the calls' order.
 */
export async function answerCalls(planned: readonly PlannedCall[], context: ToolRoundContext): Promise<ToolRoundOutcome> {
  const { draft, round } = context;
  const answers = new Map<string, AnsweredCall>();
  const { maxOutputChars, maxTurnOutputChars } = context.toolRun;
  // Every round re-sends the turn's results: past tools.maxTurnOutputChars, the next ones are cut
  // (in the order they are answered), so what a turn makes the model read stays bounded.
  // Only what tools returned is cut: the texts of calls that did not run stay whole (they are short).
  let outputLeft = maxTurnOutputChars - turnOutputChars(draft.messages);
  const answer = (id: string, call: AnsweredCall) => {
    answers.set(id, call);
    context.onEvent?.({ type: 'tool-result', round, result: call.record, content: call.message.content });
  };
  const answerResult = (id: string, result: AnsweredCall) => {
    // A failure keeps at least its beginning: why it failed is what the model must read.
    const room = result.record.ok ? outputLeft : Math.max(outputLeft, FAILURE_KEPT_CHARS);
    const content = withinTurnOutput(result.message.content, room, maxTurnOutputChars);
    outputLeft -= Math.min(content.length, Math.max(0, outputLeft));
    answer(id, content === result.message.content ? result : { ...result, message: { ...result.message, content } });
  };
  for (const entry of planned) {
    if (entry.kind === 'refused') answer(entry.call.id, answered(entry.call, entry.arguments, false, entry.text, maxOutputChars, { name: plannedName(entry), ...(entry.policy ? { policy: entry.policy } : {}) }));
  }
  const toRun = planned.filter((entry) => entry.kind === 'run');
  const recorded = context.journal !== undefined && toRun.some((entry) => !entry.tool.readOnly);
  const awaiting = new Map<string, AwaitedInput>();
  let failure: unknown;
  if (recorded) {
    try {
      await context.journal!.record({ ...draft, ...withAnswers(draft, answers) });
    } catch (error) {
      failure = error;
    }
  }
  if (failure === undefined) {
    draft.ran.push(...toRun.map((entry) => entry.call));
    const toolRun: ToolRunContext = context.onEvent
      ? { ...context.toolRun, onProgress: (call, progress) => context.onEvent!({ type: 'tool-progress', round, id: call.id, name: call.name, ...progress }) }
      : context.toolRun;
    await runToolCalls(toRun, toolRun, (index, result) => {
      const id = toRun[index]!.call.id;
      // A call whose server asked what only a person can give stays unanswered, like one awaiting approval.
      if ('awaiting' in result) awaiting.set(id, result.awaiting);
      else answerResult(id, result);
    });
  } else {
    for (const entry of toRun) answer(entry.call.id, answered(entry.call, entry.arguments, false, toolText.notRecorded(), maxOutputChars, { name: entry.tool.name }));
  }
  const settled = withAnswers(draft, answers);
  draft.messages = settled.messages;
  draft.toolCalls = settled.toolCalls;
  if (failure !== undefined) return { kind: 'not-recorded', cause: failure };
  if (recorded && context.journal) {
    try {
      await context.journal.record(draft);
    } catch (error) {
      // The calls ran; their results are in the draft, which the turn still tries to store whole.
      return { kind: 'not-recorded', cause: error };
    }
  }
  const waiting = planned.filter((entry) => (entry.kind === 'approval' && !answers.has(entry.call.id)) || awaiting.has(entry.call.id));
  if (waiting.length === 0) return { kind: 'answered' };
  const pending: PendingApproval[] = [];
  const elicitations: PendingElicitation[] = [];
  for (const entry of waiting) {
    const awaited = awaiting.get(entry.call.id);
    const name = entry.kind === 'refused' ? entry.call.name : entry.tool.name;
    const server = (entry.kind === 'refused' ? undefined : entry.tool.server) ?? awaited?.server ?? '';
    if (awaited?.kind === 'elicitation') {
      const { message, requestedSchema, mode, url, elicitationId } = awaited.request;
      const visit = mode === 'url' ? { mode, ...(url === undefined ? {} : { url }), ...(elicitationId === undefined ? {} : { elicitationId }) } : {};
      elicitations.push({ toolCallId: entry.call.id, name, server, message, requestedSchema, ...visit });
      continue;
    }
    const sampling = awaited?.kind === 'sampling' ? { sampling: samplingShown(awaited.request) } : {};
    pending.push({ toolCallId: entry.call.id, name, server, arguments: entry.arguments, ...sampling });
  }
  return { kind: 'waiting', pending, elicitations };
}

/** What a person approving a sampling request sees of it: the messages, the server's system prompt, the cap. */
function samplingShown(request: SamplingRequest): NonNullable<PendingApproval['sampling']> {
  return { messages: request.messages, ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }), maxTokens: request.maxTokens };
}

/**
 * The draft with these answers placed after the round's assistant message, in the calls' order
 * (answers already there are kept), and their records appended in the same order.
 */
function withAnswers(draft: TurnDraft, answers: ReadonlyMap<string, AnsweredCall>): Pick<TurnDraft, 'messages' | 'toolCalls'> {
  let at = draft.messages.length - 1;
  while (at >= 0 && draft.messages[at]!.role === 'tool') at--;
  const existing = new Map(
    draft.messages.slice(at + 1).flatMap((message) => (message.role === 'tool' ? [[message.toolCallId, message] as const] : [])),
  );
  const tools: ToolMessage[] = [];
  const records: ToolCallRecord[] = [];
  const assistant = draft.messages[at];
  const calls = assistant?.role === 'assistant' ? assistant.toolCalls : [];
  for (const call of calls) {
    const answer = answers.get(call.id);
    const message = existing.get(call.id) ?? answer?.message;
    if (message) tools.push(message);
    if (answer && !existing.has(call.id)) records.push(answer.record);
  }
  return { messages: [...draft.messages.slice(0, at + 1), ...tools], toolCalls: [...draft.toolCalls, ...records] };
}
