import { TaskState, type AgentCard, type Message, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError, PushNotificationNotSupportedError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { Agent } from '../../agent/agent-api.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import { readResponseFormat } from '../../agent/turn/read-response-format.ts';
import { checkConversationId, REQUEST_ID_PATTERN } from '../../agent/turn/validate-input.ts';
import type { Logger } from '../../core/logger.ts';
import type { ResponseFormat } from '../../core/response-format.ts';
import type { TurnResult } from '../../core/turn.ts';
import { traceOf } from '../../http/trace-of.ts';
import { callerTokenOf } from '../../http/caller-token-of.ts';
import type { HttpRequest, HttpResponse } from '../../http/types.ts';
import { decisionsOf } from './decisions.ts';
import { a2aFailureOf } from './errors.ts';
import { EventQueue } from './event-queue.ts';
import { agentMessage, replyArtifact, textOf, textPart } from './parts.ts';
import { statusOfResult, taskOfResult, taskOfStoredTurn, workingTask } from './task.ts';
import { readTaskId, taskIdOf, type TaskKey } from './task-id.ts';

/** A message, read and checked, ready to run as a turn: a new one, or the paused one it resumes. */
interface TurnCall {
  /** Set when the message continues a paused task: its turn is known before it runs. */
  resumes?: TaskKey;
  question?: string;
  run(onEvent?: (event: LoopEvent) => void): Promise<TurnResult>;
}

/**
 * The A2A operations over the agent, for one HTTP request (its owner, deadline and trace go with
 * every turn). The SDK's JSON-RPC transport handlers (v1.0 and v0.3) call it, so the wire shapes,
 * method names and error codes are the SDK's; what a task is comes from task.ts.
 * Push notifications, task lists and resubscription are not offered (the card says so).
 */
export class AgentRequestHandler implements A2ARequestHandler {
  private readonly agent: Agent;
  private readonly logger: Logger;
  private readonly request: HttpRequest;
  private readonly card: AgentCard;
  private readonly now: () => number;
  /**
   * The native response of the last failure of the agent this request met (its status, and a
   * Retry-After for a busy conversation or a limit), for the HTTP status of the JSON-RPC error.
   */
  nativeFailure: HttpResponse | undefined;

  constructor(agent: Agent, logger: Logger, request: HttpRequest, card: AgentCard, now: () => number = Date.now) {
    this.agent = agent;
    this.logger = logger;
    this.request = request;
    this.card = card;
    this.now = now;
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('This agent has no extended card.');
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    const call = await this.turnCall(params);
    const result = await call.run().catch((error: unknown) => {
      throw this.failed(error);
    });
    return taskOfResult(result, call.question, this.date());
  }

  /**
   * The task first (once the turn has its number), a `working` status update for each tool call,
   * then for an answered turn the reply as an artifact, and the last status: completed,
   * input-required or failed. A failure before the turn starts is the request's error; after, the
   * task fails with the error's message.
   */
  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const call = await this.turnCall(params);
    const events = new EventQueue<LoopEvent>();
    // A resumed task's turn is known from its id, a new one's from turn-start; either is announced
    // with the first event, so a decision the agent refuses is the request's error, not a failed task.
    let known: TaskKey | undefined = call.resumes;
    let announced = false;
    const running = call.run((event) => events.push(event)).finally(() => events.close());
    // Nothing is lost if the client goes: the turn is awaited below or by the caller's `settled`.
    running.catch(() => undefined);
    for await (const event of events) {
      if (event.type === 'turn-start') known = { conversationId: event.conversationId, turn: event.turn };
      if (!known) continue;
      if (!announced) {
        announced = true;
        yield task(workingTask(known.conversationId, known.turn, call.question, this.date()));
      }
      if (event.type === 'tool-call') yield this.working(known, `Calling ${event.call.name}`);
    }
    let result: TurnResult;
    try {
      result = await running;
    } catch (error) {
      if (!announced || !known) throw this.failed(error);
      const failure = this.failed(error);
      const ids = { taskId: taskIdOf(known.conversationId, known.turn), contextId: known.conversationId };
      yield statusUpdate(ids, { state: TaskState.TASK_STATE_FAILED, message: agentMessage([textPart(failure.message)], ids), timestamp: this.date().toISOString() });
      return;
    }
    // A retried message (the same messageId) is answered with its stored turn, which never started here.
    if (!announced) yield task(workingTask(result.conversationId, result.turn, call.question, this.date()));
    const ids = { taskId: taskIdOf(result.conversationId, result.turn), contextId: result.conversationId };
    const status = statusOfResult(result, this.date());
    if (status.state === TaskState.TASK_STATE_COMPLETED) {
      yield { payload: { $case: 'artifactUpdate', value: { ...ids, artifact: replyArtifact(result), append: false, lastChunk: true, metadata: undefined } } };
    }
    yield statusUpdate(ids, status, { mcpAgent: result });
  }

  async getTask(params: { id: string }): Promise<Task> {
    const key = this.taskKey(params.id);
    const stored = await this.agent.readTurn({ conversationId: key.conversationId, ...this.owner() }, key.turn);
    if (!stored) throw new TaskNotFoundError(`There is no task ${params.id}.`);
    return taskOfStoredTurn(key.conversationId, stored, this.date());
  }

  /**
   * Nothing stops a running turn once it has started (it ends within its round and time limits),
   * and a paused one is ended by deciding its calls: so no task can be canceled, and the error says
   * what can be done instead.
   */
  async cancelTask(params: { id: string }): Promise<Task> {
    const task = await this.getTask(params);
    const state = task.status?.state;
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED) throw new TaskNotCancelableError(`Task ${params.id} waits for a decision: send "decline" in the task to end it without running the waiting calls.`);
    if (state === TaskState.TASK_STATE_WORKING) throw new TaskNotCancelableError(`Task ${params.id} is running and cannot be stopped; it ends within the agent's round and time limits.`);
    throw new TaskNotCancelableError(`Task ${params.id} has ended: a finished task cannot be canceled.`);
  }

  async listTasks(): Promise<never> {
    throw new UnsupportedOperationError('Tasks are not listed: read a conversation\'s turns with GET /conversations/{contextId}.');
  }

  /** A generator, as the interface has it, that refuses before its first event. */
  async *resubscribe(): AsyncGenerator<StreamResponse, void, undefined> {
    throw new UnsupportedOperationError('Resubscribing to a task is not supported: read it with GetTask (tasks/get).');
  }

  async createTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  /**
   * A message with a task id continues that task, which must be waiting for a decision (a finished
   * task takes no more messages: A2A's UnsupportedOperationError). Any other message is a new turn
   * in its context (a new conversation without one, or with a context id not seen before).
   */
  private async turnCall(params: SendMessageRequest): Promise<TurnCall> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('The request has no message.');
    const requestId = REQUEST_ID_PATTERN.test(message.messageId) ? { requestId: message.messageId } : {};
    const common = { ...requestId, ...this.owner(), ...(this.request.deadlineAt === undefined ? {} : { deadlineAt: this.request.deadlineAt }), ...traceOf(this.request), ...callerTokenOf(this.request) };
    if (message.taskId) {
      const key = this.taskKey(message.taskId);
      if (message.contextId && message.contextId !== key.conversationId) throw new RequestMalformedError(`Task ${message.taskId} belongs to context ${key.conversationId}, not ${message.contextId}.`);
      const stored = await this.agent.readTurn({ conversationId: key.conversationId, ...this.owner() }, key.turn).catch((error: unknown) => {
        throw this.failed(error);
      });
      if (!stored) throw new TaskNotFoundError(`There is no task ${message.taskId}.`);
      if (stored.status !== 'paused' || !('stopReason' in stored.result)) {
        throw new UnsupportedOperationError(`Task ${message.taskId} is ${stored.status === 'running' ? 'still running' : 'finished'} and takes no more messages: send the message in context ${key.conversationId} without a task id for a new task.`);
      }
      const decisions = decisionsOf(message, stored.result);
      return { resumes: key, run: (onEvent) => this.agent.decide({ conversationId: key.conversationId, decisions, ...common, ...(onEvent ? { onEvent } : {}) }) };
    }
    const question = textOf(message);
    if (question === '') throw new RequestMalformedError('The message has no text: send the question as a text part.');
    if (message.contextId) {
      try {
        checkConversationId(message.contextId);
      } catch (error) {
        throw new RequestMalformedError(`contextId: ${(error as Error).message.replace('conversationId', 'a context id')}`);
      }
    }
    const conversation = message.contextId ? { conversationId: message.contextId } : {};
    const format = this.responseFormatOf(message);
    return { question, run: (onEvent) => this.agent.ask({ message: question, ...conversation, ...format, ...common, ...(onEvent ? { onEvent } : {}) }) };
  }

  /**
   * A structured answer is asked for in the message's metadata, `responseFormat` (the native field,
   * docs/structured-answers.md): A2A has no field of its own for an output schema, and metadata is
   * where its extensions put what a message asks for. A bad one is the request's error, -32602.
   */
  private responseFormatOf(message: Message): { responseFormat?: ResponseFormat } {
    const value: unknown = message.metadata?.responseFormat;
    if (value === undefined) return {};
    try {
      return { responseFormat: readResponseFormat(value) };
    } catch (error) {
      throw this.failed(error);
    }
  }

  private failed(error: unknown): Error {
    const failure = a2aFailureOf(error, this.logger);
    this.nativeFailure = failure.native;
    return failure.error;
  }

  private taskKey(id: string): TaskKey {
    const key = readTaskId(id);
    if (!key) throw new TaskNotFoundError(`There is no task ${id}.`);
    return key;
  }

  private owner(): { owner?: string } {
    return this.request.owner ? { owner: this.request.owner } : {};
  }

  private working(started: { conversationId: string; turn: number }, text: string): StreamResponse {
    const ids = { taskId: taskIdOf(started.conversationId, started.turn), contextId: started.conversationId };
    return statusUpdate(ids, { state: TaskState.TASK_STATE_WORKING, message: agentMessage([textPart(text)], ids), timestamp: this.date().toISOString() });
  }

  private date(): Date {
    return new Date(this.now());
  }
}

const task = (value: Task): StreamResponse => ({ payload: { $case: 'task', value } });

function statusUpdate(ids: { taskId: string; contextId: string }, status: NonNullable<Task['status']>, metadata?: Record<string, unknown>): StreamResponse {
  return { payload: { $case: 'statusUpdate', value: { ...ids, status, metadata } } };
}
