/**
 * One run of one case through the agent: each turn asked in the same conversation, paused turns
 * decided as the case says, then every check of the turn. A turn that throws (the model is down,
 * the question is refused) fails the run with the error's code; the turns after it do not run.
 */
import type { Agent, TurnTraceView } from '../agent/agent-api.ts';
import { AgentError, errorMessage } from '../core/errors.ts';
import type { TokenUsage } from '../core/messages.ts';
import type { ModelClient } from '../core/ports/model.ts';
import type { ToolCallRecord, TurnResult } from '../core/turn.ts';
import { decide, unusedAnswers } from './approvals.ts';
import { checkTurn, type CheckFailure } from './checks.ts';
import { grade, type JudgedCall } from './judge.ts';
import type { EvalCase } from './load-suite.ts';
import type { ApprovalAnswer, EvalTurn } from './suite-schema.ts';

/** A turn that ran, as the scorecard shows it. */
export interface TurnReport {
  question: string;
  /** Where its trace is: GET /conversations/{conversationId}/turns/{turn}/trace, or agent.getTurnTrace. */
  conversationId?: string;
  turn?: number;
  stopReason?: TurnResult['stopReason'];
  reply?: string;
  toolCalls: Array<Pick<ToolCallRecord, 'name' | 'arguments' | 'ok'>>;
  /** The agent's model tokens of the turn (the judge's are not counted). */
  usage?: TokenUsage;
  judge?: { score: number; threshold: number; reason: string };
  failures: CheckFailure[];
  /** The turn's trace, kept for a failing turn (the store of a run is gone when the process ends). */
  trace?: TurnTraceView;
}

export interface CaseRun {
  caseName: string;
  /** 1 to the case's repeat. */
  run: number;
  passed: boolean;
  durationMs: number;
  turns: TurnReport[];
}

export interface Judge {
  model: ModelClient;
  threshold: number;
}

export interface RunCaseOptions {
  agent: Agent;
  judge?: Judge;
  now?: () => number;
}

/** A turn paused this many times in a row is not going anywhere. */
const MAX_PAUSES = 10;

export async function runCase(evalCase: EvalCase, run: number, { agent, judge, now = Date.now }: RunCaseOptions): Promise<CaseRun> {
  const started = now();
  const turns: TurnReport[] = [];
  let conversationId: string | undefined;
  for (const [index, turn] of evalCase.turns.entries()) {
    const report = await runTurn(agent, turn, conversationId, evalCase.turns.slice(0, index + 1).map((each) => each.question), judge);
    turns.push(report);
    conversationId = report.conversationId;
    if (report.stopReason === undefined) break;
  }
  return { caseName: evalCase.name, run, passed: turns.every((turn) => turn.failures.length === 0) && turns.length === evalCase.turns.length, durationMs: now() - started, turns };
}

async function runTurn(agent: Agent, turn: EvalTurn, conversationId: string | undefined, questions: string[], judge: Judge | undefined): Promise<TurnReport> {
  const answers = turn.approvals ?? [];
  const used = new Set<ApprovalAnswer>();
  const failures: CheckFailure[] = [];
  const calls = new Map<string, ToolCallRecord>();
  let result: TurnResult;
  try {
    result = await agent.ask({ message: turn.question, ...(conversationId ? { conversationId } : {}) });
    result.toolCalls.forEach((call) => calls.set(call.id, call));
    for (let pauses = 0; result.stopReason === 'approval_required' && pauses < MAX_PAUSES; pauses += 1) {
      const decided = decide(result.pendingApprovals ?? [], answers, used);
      if (decided.kind === 'unexpected') {
        failures.push(decided.failure);
        break;
      }
      result = await agent.decide({ conversationId: result.conversationId, decisions: decided.decisions });
      result.toolCalls.forEach((call) => calls.set(call.id, call));
    }
  } catch (error) {
    const code = error instanceof AgentError ? `${error.code}: ` : '';
    // The service keeps a provider's words for its log; the person running an evaluation needs them here.
    const cause = error instanceof Error && error.cause !== undefined ? ` (${errorMessage(error.cause)})` : '';
    return { question: turn.question, ...(conversationId ? { conversationId } : {}), toolCalls: [], failures: [{ kind: 'error', message: `the turn failed: ${code}${errorMessage(error)}${cause}` }] };
  }
  const toolCalls = [...calls.values()];
  failures.push(...unusedAnswers(answers, used), ...checkTurn(turn.expect, { result, toolCalls }));
  const judged = turn.expect.judge && judge
    ? await judgeTurn(judge, { questions, toolCalls: await withResults(agent, result, toolCalls), reply: result.reply, criteria: turn.expect.judge.criteria }, turn.expect.judge.threshold ?? judge.threshold)
    : undefined;
  if (judged?.failure) failures.push(judged.failure);
  return {
    question: turn.question,
    conversationId: result.conversationId,
    turn: result.turn,
    stopReason: result.stopReason,
    reply: result.reply,
    toolCalls: toolCalls.map(({ name, arguments: args, ok }) => ({ name, arguments: args, ok })),
    usage: { promptTokens: result.usage.promptTokens, completionTokens: result.usage.completionTokens },
    ...(judged?.grade ? { judge: judged.grade } : {}),
    failures,
    ...(failures.length > 0 ? await traceOf(agent, result) : {}),
  };
}

async function judgeTurn(judge: Judge, input: Parameters<typeof grade>[1], threshold: number): Promise<{ grade?: TurnReport['judge']; failure?: CheckFailure }> {
  const graded = await grade(judge.model, input);
  if (graded.kind === 'unusable') return { failure: { kind: 'judge', message: graded.message } };
  const result = { score: graded.score, threshold, reason: graded.reason };
  if (graded.score >= threshold) return { grade: result };
  return { grade: result, failure: { kind: 'judge', message: `the judge graded ${graded.score} (pass mark ${threshold}): ${graded.reason}` } };
}

/** The largest page of turns the agent reads at once: cases have fewer turns than this. */
const TURNS_PER_PAGE = 100;

/** Each call with the result the model saw, read from the turn's stored messages. */
async function withResults(agent: Agent, result: TurnResult, calls: ToolCallRecord[]): Promise<JudgedCall[]> {
  const view = await agent.getConversation({ conversationId: result.conversationId }, { limit: TURNS_PER_PAGE });
  const messages = view.turns.find((each) => each.turn === result.turn)?.messages ?? [];
  const results = new Map(messages.flatMap((message) => (message.role === 'tool' ? [[message.toolCallId, message.content] as const] : [])));
  return calls.map(({ id, name, arguments: args, ok }) => ({ name, arguments: args, ok, ...(results.has(id) ? { result: results.get(id)! } : {}) }));
}

/** The turn's trace, when traces are on; a failing case is worth nothing without it. */
async function traceOf(agent: Agent, result: TurnResult): Promise<{ trace?: TurnTraceView }> {
  try {
    return { trace: await agent.getTurnTrace({ conversationId: result.conversationId }, result.turn) };
  } catch {
    // trace.enabled: false, or the turn never reached the model: the reference is all there is.
    return {};
  }
}
