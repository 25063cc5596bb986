/**
 * One run of one call to a server that may ask (elicitation `ask`, sampling on): answers the
 * server's requests during that run.
 *
 *   elicitation  the next answer the person gave (in order, when it fits the form) -> that answer
 *                none                        -> remember the question, tell the server "cancel":
 *                                               the call then waits, unanswered, for the person
 *   sampling     `ask` and no approval given  -> remember the request, refuse it: the call waits
 *                no round left in the turn    -> refused (maxRounds)
 *                otherwise                    -> the turn's model answers, counted in its rounds
 *
 * Answers are used in the order the questions come, so a tool that asks twice gets both on its
 * third run; a question that no longer fits the answer in its place drops that answer and the
 * ones after it, and is asked anew.
 */
import { errorMessage } from '../../core/errors.ts';
import type { ElicitationRequest, ElicitationResult, SamplingRequest, SamplingResult } from '../../core/ports/tools.ts';
import type { AwaitedInput, CallInput } from '../../agent/loop/call-input.ts';
import type { RunningCall, TurnContext } from '../../agent/extension-api/extension.ts';
import { checkArguments } from '../../agent/loop/validate-arguments.ts';
import type { CallAnswers } from './request-router.ts';

interface CallSessionOptions {
  server: string;
  call: RunningCall;
  turn: TurnContext;
  /** What the person answered in earlier runs of this call, in order; trimmed when a question changed. */
  answers: CallInput[];
  /** `sampling: ask`: a person approves each sampling request first. */
  samplingNeedsApproval: boolean;
  /** model.timeoutSeconds, in ms: a sampling call gets no more (nor more than the call has). */
  modelTimeoutMs: number;
  /** The model's name, as the sampling result names it. */
  modelName: string;
}

export class CallSession implements CallAnswers {
  /** What this run asked that only a person can give; the call then waits for it. */
  awaited: AwaitedInput | undefined;
  readonly conversationId: string;
  readonly owner: string | undefined;
  private readonly options: CallSessionOptions;
  private used = 0;

  constructor(options: CallSessionOptions) {
    this.options = options;
    this.conversationId = options.turn.conversationId;
    this.owner = options.turn.owner;
  }

  async elicit(request: ElicitationRequest): Promise<ElicitationResult> {
    const prepared = this.next('elicitation');
    if (prepared?.kind === 'elicitation' && fits(prepared.result, request)) {
      this.used++;
      return prepared.result;
    }
    this.asked({ kind: 'elicitation', server: this.options.server, request });
    // "Cancel" is what the person did, for now: they were not there to answer. The call's run
    // ends; it runs again when they answer.
    return { action: 'cancel' };
  }

  async sample(request: SamplingRequest, signal: AbortSignal): Promise<SamplingResult> {
    const { turn, call, server } = this.options;
    if (this.awaited) throw new Error('the call waits for the user; this request is not answered now');
    if (this.options.samplingNeedsApproval) {
      if (this.next('sampling')?.kind !== 'sampling') {
        this.asked({ kind: 'sampling', server, request });
        throw new Error('the user must approve this sampling request first; the call runs again once they do');
      }
      this.used++;
    }
    if (!turn.takeRound()) throw new Error('the turn has used all its model rounds (maxRounds), so it cannot answer this request');
    const reply = await turn.model.complete({
      messages: [
        ...(request.systemPrompt === undefined ? [] : [{ role: 'system' as const, content: request.systemPrompt }]),
        ...request.messages.map((message) =>
          message.role === 'user'
            ? { role: 'user' as const, content: message.text }
            : { role: 'assistant' as const, content: message.text, toolCalls: [] },
        ),
      ],
      tools: [],
      maxTokens: request.maxTokens,
      timeoutMs: Math.min(this.options.modelTimeoutMs, call.timeoutMs),
      signal: AbortSignal.any([call.signal, signal]),
    }).catch((error: unknown) => {
      throw new Error(`the model failed: ${errorMessage(error)}`, { cause: error });
    });
    turn.addUsage(reply.usage);
    turn.emit('sampling', { toolCallId: call.id, server, usage: reply.usage });
    return { text: reply.content ?? '', model: this.options.modelName, stopReason: 'endTurn' };
  }

  /** The answer in line for the next request, if it is of this kind; otherwise the rest no longer fit. */
  private next(kind: CallInput['kind']): CallInput | undefined {
    const prepared = this.options.answers[this.used];
    if (prepared?.kind === kind) return prepared;
    this.options.answers.splice(this.used);
    return undefined;
  }

  /** The first thing asked that only a person can give is what the call waits for. */
  private asked(awaited: AwaitedInput): void {
    this.options.answers.splice(this.used);
    this.awaited ??= awaited;
  }
}

/** A decline or cancel answers any question; accepted values must fit the form asked now. */
function fits(result: ElicitationResult, request: ElicitationRequest): boolean {
  return result.action !== 'accept' || checkArguments(request.requestedSchema, result.content).valid;
}
