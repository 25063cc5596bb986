import { ConflictError, InputError, NotFoundError, TurnTakenError } from '../../core/errors.ts';
import { findOpenRound, historyMessages } from '../../core/history.ts';
import type { HistoryMessage, ToolCall } from '../../core/messages.ts';
import type { ConversationKey, ConversationState, ConversationStore } from '../../core/ports/conversation-store.ts';
import type { TurnResult } from '../../core/turn.ts';
import { earlierTurns } from './earlier-turns.ts';
import type { EarlierTurns } from '../extension-api/extension.ts';
import { claimWrite, type HeldTurn } from './held-turn.ts';
import { openingDeadline, requestIdReused, settleTurn, storeRetries, type TurnRules } from './open-turn.ts';
import type { Deadline } from './held-turn.ts';
import { toolText } from '../loop/tool-messages.ts';
import { parseArguments, type PlannedCall } from '../loop/tool-plan.ts';
import type { OfferedTool } from '../loop/tool-policy.ts';
import { recordedDecision, type TurnCallPolicy } from '../loop/call-policy.ts';
import { approvalExpired, decideOpening, readUntil } from './turn-opening.ts';
import { resumedDraft, type TurnDraft } from './turn-draft.ts';
import type { CallInput } from '../loop/call-input.ts';
import { checkArguments } from '../loop/validate-arguments.ts';
import type { ApprovalDecision } from './validate-input.ts';

interface OpenApprovalsInput {
  store: ConversationStore;
  key: ConversationKey;
  requestId: string;
  /** The digest of these decisions: the requestId replays only to the same decisions. */
  requestDigest: string;
  claimId: string;
  decisions: ApprovalDecision[];
  now: number;
  leaseExpiresAt: number;
  /** Each store request is tried again while the store is unavailable, until then; and ends by then. */
  deadline: Deadline;
  /** Epoch ms: opening the turn (nothing has run yet) waits for an unavailable store until then at most. */
  waitForStoreUntil?: number;
  clock: () => number;
  rules: TurnRules;
}

type OpenedApprovals =
  | { kind: 'replay'; result: TurnResult }
  /** `waiting`: the calls decided now, in the calls' order. */
  | { kind: 'resumed'; held: HeldTurn; history: HistoryMessage[]; draft: TurnDraft; waiting: ToolCall[]; state: ConversationState; earlier: EarlierTurns; asked: WaitingKinds };

/** Which waiting calls wait for what: an answer to their server's question, or approval of its sampling (the rest: approval). */
interface WaitingKinds {
  questions: ReadonlySet<string>;
  samplings: ReadonlySet<string>;
}

/**
 * Takes up a paused turn with a person's decisions: every waiting call decided in one request, none
 * that is not waiting. One Query, one conditional write that moves the turn from paused to running
 * under this request's claim (two requests deciding at once: one wins, the other gets 409).
 */
export async function openApprovals(input: OpenApprovalsInput): Promise<OpenedApprovals> {
  const { store, key, requestId, rules } = input;
  const retried = storeRetries(openingDeadline(input), input.clock);
  const recent = await retried((options) => store.readRecent(key, readUntil(requestId, rules.historyTokenBudget), options));
  const own = decideOpening(recent, requestId, input.now, input.requestDigest);
  if (own.kind === 'reused') throw requestIdReused(requestId, 'decisions');
  // A retry of this very request: the same answers as a retried message (replay, in progress, settle).
  if (own.kind === 'replay' && own.record.requestIds.includes(requestId)) return { kind: 'replay', result: own.record.result() as TurnResult };
  if (own.kind === 'busy' && own.ownRequest) throw inProgress(requestId, own.record.turn, own.record.leaseExpiresAt, input.now);
  if (own.kind === 'settle' && own.then === 'replay') {
    const settled = await retried((options) => settleTurn(store, key, own.record, own.how, input.claimId, new Date(input.now).toISOString(), rules, options));
    return { kind: 'replay', result: settled.result };
  }

  const paused = recent[0];
  if (!paused) throw new NotFoundError('conversation_not_found', `There is no conversation "${key.conversationId}". Start one with POST /conversations.`);
  if (paused.status !== 'paused') {
    const why = paused.status === 'running' ? `turn ${paused.turn} is running (its calls were decided by another request, or it needs none)` : `its last turn, ${paused.turn}, is complete`;
    throw new ConflictError('approval_not_pending', `No tool calls are waiting for approval in this conversation: ${why}.`);
  }
  const open = findOpenRound(paused.messages());
  const waiting = new Map((open?.unanswered ?? []).map((call) => [call.id, call]));
  const unknown = input.decisions.filter((decision) => !waiting.has(decision.toolCallId)).map((decision) => decision.toolCallId);
  if (unknown.length > 0) {
    throw new ConflictError('approval_not_pending', `Not waiting for approval: ${unknown.join(', ')} (already decided, or never asked for). Waiting now: ${[...waiting.keys()].join(', ')}.`);
  }
  const decided = new Map(input.decisions.map((decision) => [decision.toolCallId, decision]));
  const missing = [...waiting.keys()].filter((id) => !decided.has(id));
  if (missing.length > 0) {
    throw new InputError('undecided_calls', `Decide every call waiting for approval in one request; missing: ${missing.join(', ')}.`);
  }
  const asked = checkDecisionKinds(input.decisions, paused.result() as TurnResult);
  if (approvalExpired(paused, input.now)) {
    await retried((options) => settleTurn(store, key, paused, 'approval-expired', input.claimId, new Date(input.now).toISOString(), rules, options));
    throw new ConflictError('approval_expired', `The calls waiting for approval in turn ${paused.turn} expired (approvals.ttlSeconds is ${rules.approvalTtlSeconds}) and were declined; send a new message to continue.`);
  }

  const held: HeldTurn = {
    key,
    turn: paused.turn,
    claimId: input.claimId,
    requestIds: [...paused.requestIds, requestId],
    requestDigests: { ...paused.requestDigests, [requestId]: input.requestDigest },
    createdAt: paused.createdAt,
    leaseExpiresAt: input.leaseExpiresAt,
  };
  const draft = resumedDraft(paused.messages(), paused.result());
  try {
    await retried((options) => store.update(key, paused.turn, { claimId: paused.claimId, status: 'paused' }, claimWrite(held, draft, paused.state()), options));
  } catch (error) {
    if (!(error instanceof TurnTakenError)) throw error;
    // This very request, sent twice at once: its twin took the turn over; this one waits for it.
    if (error.current?.requestIds.includes(requestId)) {
      if (error.current.status === 'running') throw inProgress(requestId, paused.turn, error.current.leaseExpiresAt, input.now, error);
      return openApprovals({ ...input, now: input.clock() });
    }
    throw new ConflictError('approval_not_pending', `The calls waiting for approval in turn ${paused.turn} were just decided by another request.`, { cause: error });
  }
  const complete = recent.filter((record) => record.status === 'complete');
  const history = historyMessages(complete, rules.historyTokenBudget);
  const earlier = earlierTurns(complete, rules.historyTokenBudget, (wantsMore) => storeRetries(input.deadline, input.clock)((options) => store.readRecent(key, wantsMore, options)));
  return { kind: 'resumed', held, history, draft, waiting: open?.unanswered ?? [], state: paused.state(), earlier, asked };
}

function inProgress(requestId: string, turn: number, leaseExpiresAt: number | undefined, now: number, cause?: unknown): ConflictError {
  const seconds = Math.max(1, Math.ceil(((leaseExpiresAt ?? now) - now) / 1000));
  return new ConflictError('turn_in_progress', `Request ${requestId} is still running turn ${turn}; retry after ${seconds} s to get its result.`, { cause, retryAfterSeconds: seconds });
}

/**
 * Each decision fits what its call waits for: an answer (fitting the question's schema) for a
 * question, `approved` for anything else.
 */
function checkDecisionKinds(decisions: readonly ApprovalDecision[], paused: TurnResult): WaitingKinds {
  const questions = new Map((paused.pendingElicitations ?? []).map((asked) => [asked.toolCallId, asked]));
  const samplings = new Set((paused.pendingApprovals ?? []).filter((pending) => pending.sampling).map((pending) => pending.toolCallId));
  for (const decision of decisions) {
    const question = questions.get(decision.toolCallId);
    if (!question) {
      if (decision.approved === undefined) {
        throw new InputError('invalid_decisions', `Call ${decision.toolCallId} waits for approval: decide it with {"toolCallId": "${decision.toolCallId}", "approved": true | false}.`);
      }
      continue;
    }
    const answer = decision.answer;
    if (answer === undefined) {
      throw new InputError('invalid_decisions', `Call ${decision.toolCallId} waits for the answer to "${question.message}": decide it with {"toolCallId": "${decision.toolCallId}", "answer": {"action": "accept", "content": {...}}} (or "decline", "cancel").`);
    }
    if (answer.action === 'accept' && question.mode === 'url' && Object.keys(answer.content).length > 0) {
      throw new InputError('invalid_answer', `Call ${decision.toolCallId} asked the user to open ${question.url ?? 'a page'}; accept it with {"action": "accept"} and no content.`);
    }
    if (answer.action === 'accept') {
      const check = checkArguments(question.requestedSchema, answer.content);
      if (!check.valid) throw new InputError('invalid_answer', `The answer for call ${decision.toolCallId} does not fit the question's form: ${check.problems}.`);
    }
  }
  return { questions: new Set(questions.keys()), samplings };
}

interface DecisionContext {
  decisions: readonly ApprovalDecision[];
  /** What the calls wait for, from the paused turn; none given: every call waits for approval. */
  asked?: WaitingKinds;
  /** The tools offered now: an approved call whose tool is no longer offered is answered as unknown. */
  tools: ReadonlyMap<string, OfferedTool>;
  /** The call a routing tool stands for, as when the call was first planned. */
  route: (call: ToolCall) => ToolCall;
  /** The turn's call policy: an approved call is decided again (policies may have changed since it was asked for). */
  policy?: TurnCallPolicy;
}

/**
 * The decided calls, planned: approved ones run with exactly the arguments they were approved with.
 * A call whose server asked a question runs again with the answer, whatever it is (a decline is the
 * server's to act on); one whose sampling was approved runs again with that approval, and one
 * whose sampling was declined is answered so (its first run already ended at that request).
 */
export function planDecisions(waiting: readonly ToolCall[], context: DecisionContext): PlannedCall[] {
  const decided = new Map(context.decisions.map((decision) => [decision.toolCallId, decision]));
  return waiting.map((call): PlannedCall => {
    const decision = decided.get(call.id)!;
    const target = context.route(call);
    const parsed = parseArguments(target.arguments);
    const args = parsed.ok ? parsed.value : {};
    const sampling = context.asked?.samplings.has(call.id) ?? false;
    const input: CallInput | undefined = decision.answer ? { kind: 'elicitation', result: decision.answer } : sampling && decision.approved ? { kind: 'sampling', approved: true } : undefined;
    if (!input && !decision.approved) return { kind: 'refused', call, arguments: args, text: sampling ? toolText.samplingDeclined(decision.reason) : toolText.declined(decision.reason) };
    const tool = context.tools.get(target.name);
    if (!tool) return { kind: 'refused', call, arguments: args, text: toolText.unknownTool(target.name, [...context.tools.keys()]) };
    const verdict = context.policy?.decide(tool, args);
    const policy = verdict ? { policy: recordedDecision(verdict) } : {};
    if (verdict?.decision === 'deny') return { kind: 'refused', call, arguments: args, text: toolText.forbiddenByPolicy(target.name, verdict.reasons), name: target.name, ...policy };
    return { kind: 'run', call, tool, arguments: args, ...(input ? { input } : {}), ...policy };
  });
}
