import { describe, expect, it, vi } from 'vitest';
import type { AskInput } from '../../lib/agent/agent-api.ts';
import { ConflictError, ModelError, StoreError } from '../../lib/core/errors.ts';
import { ANSWER_MARGIN_MS } from '../../lib/core/deadline.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import type { TurnResult } from '../../lib/core/turn.ts';
import type { TurnAnnouncer } from '../../lib/core/ports/turn-announcer.ts';
import { WORKER_START_MARGIN_MS } from '../../lib/queue/worker.ts';
import { createQueueWorker, type QueueWorkerOptions } from '../../lib/queue/worker.ts';
import { textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { sqsEvent, sqsRecord } from '../support/sqs-records.ts';

// Prepare: an announcer that remembers what it saw (SQS records, contexts and loggers: test/support).

function recordingAnnouncer(fail: (call: number) => boolean = () => false) {
  const announced: Array<{ result: TurnResult; requestId: string }> = [];
  const announcer: TurnAnnouncer = {
    async announce(result, requestId) {
      if (fail(announced.length + 1)) {
        announced.push({ result, requestId });
        throw new Error('PutEvents failed');
      }
      announced.push({ result, requestId });
    },
  };
  return { announcer, announced };
}

const lastQuestion = (request: ModelRequest) => request.messages.findLast((message) => message.role === 'user')?.content;
/** Answers every question by echoing it, whatever order concurrent turns reach the model in. */
const echo = (request: ModelRequest) => textReply(`answer to ${lastQuestion(request)}`);

/** A real agent (memory store, scripted model) behind the worker. */
function realWorker(script: Parameters<typeof agentFixture>[0], options: { yaml?: string; failAnnouncement?: (call: number) => boolean } = {}) {
  const fixture = agentFixture(script, options.yaml === undefined ? {} : { yaml: options.yaml });
  const { announcer, announced } = recordingAnnouncer(options.failAnnouncement);
  const logger = recordingLogger();
  const work = createQueueWorker({ agent: fixture.agent, announcer, logger, config: fixture.config });
  return { ...fixture, work, announced, logs: logger.entries };
}

const turnResult = (input: AskInput): TurnResult => ({
  conversationId: input.conversationId!,
  turn: 1,
  reply: `answer to ${input.message}`,
  stopReason: 'completed',
  rounds: 1,
  toolCalls: [],
  usage: { promptTokens: 1, completionTokens: 1 },
});

/** A fake agent whose turns finish only when the test says so, to observe ordering. */
function gatedWorker(options: Partial<QueueWorkerOptions> = {}) {
  const started: AskInput[] = [];
  const finish = new Map<string, () => void>();
  const agent = {
    ask: (input: AskInput) => {
      started.push(input);
      return new Promise<TurnResult>((resolve) => finish.set(input.requestId!, () => resolve(turnResult(input))));
    },
    decide: () => Promise.reject(new Error('no decisions in this test')),
  };
  const { config } = agentFixture([]);
  const work = createQueueWorker({ agent, announcer: recordingAnnouncer().announcer, logger: recordingLogger(), config, ...options });
  return { work, started, finish: (requestId: string) => finish.get(requestId)!() };
}

const settle = async () => {
  for (let tick = 0; tick < 10; tick++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the queue worker with an SQS batch', () => {
  it('runs one turn per record, stores each and announces each with its requestId', async () => {
    const { work, store, announced } = realWorker([echo, echo, echo]);

    const response = await work(sqsEvent(
      sqsRecord('m1', { conversationId: 'weather', message: 'Shanghai?', requestId: 'r1' }),
      sqsRecord('m2', { conversationId: 'news', message: 'news?', requestId: 'r2' }),
      sqsRecord('m3', { conversationId: 'weather', message: 'tomorrow?', requestId: 'r3' }),
    ), lambdaContext());

    expect(response).toEqual({ batchItemFailures: [] });
    const weather = await store.readAll({ conversationId: 'weather' });
    expect(weather.map((record) => [record.turn, record.requestIds[0], (record.result() as TurnResult).reply])).toEqual([[1, 'r1', 'answer to Shanghai?'], [2, 'r3', 'answer to tomorrow?']]);
    expect((await store.readAll({ conversationId: 'news' })).map((record) => record.requestIds[0])).toEqual(['r2']);
    expect(announced.map(({ requestId, result }) => [requestId, result.conversationId, result.turn]).sort()).toEqual([['r1', 'weather', 1], ['r2', 'news', 1], ['r3', 'weather', 2]]);
  });

  it('reports only the poison record when the middle one of three is invalid, and logs it at error level without its text', async () => {
    const { work, store, logs } = realWorker([echo, echo]);

    const response = await work(sqsEvent(
      sqsRecord('m1', { conversationId: 'c', message: 'first', requestId: 'r1' }),
      sqsRecord('m2', { conversationId: 'c', message: 'secret question', reqId: 'r2' }),
      sqsRecord('m3', { conversationId: 'c', message: 'third', requestId: 'r3' }),
    ), lambdaContext());

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
    expect((await store.readAll({ conversationId: 'c' })).map((record) => record.requestIds[0])).toEqual(['r1', 'r3']);
    const errors = logs.filter((entry) => entry.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.fields).toMatchObject({ messageId: 'm2', code: 'unknown_field', receiveCount: '1' });
    expect(errors[0]!.message).toMatch(/dead-letter queue/);
    expect(JSON.stringify(logs)).not.toContain('secret question');
  });

  it('logs the body of a poison record when logging.logPayloads is on', async () => {
    const { work, logs } = realWorker([], { yaml: 'logging: { logPayloads: true }' });

    await work(sqsEvent(sqsRecord('m1', 'not json at all')), lambdaContext());

    expect(logs.find((entry) => entry.level === 'error')?.fields).toMatchObject({ messageId: 'm1', code: 'malformed_json', body: 'not json at all' });
  });

  it('starts the second record of a conversation only after the first finished', async () => {
    const { work, started, finish } = gatedWorker();

    const running = work(sqsEvent(
      sqsRecord('m1', { conversationId: 'c', message: 'first', requestId: 'r1' }),
      sqsRecord('m2', { conversationId: 'c', message: 'second', requestId: 'r2' }),
    ), lambdaContext());
    await settle();
    expect(started.map((input) => input.requestId)).toEqual(['r1']);
    finish('r1');
    await vi.waitFor(() => expect(started.map((input) => input.requestId)).toEqual(['r1', 'r2']));
    finish('r2');

    await expect(running).resolves.toEqual({ batchItemFailures: [] });
  });

  it('runs the records of different conversations at the same time', async () => {
    const { work, started, finish } = gatedWorker();

    const running = work(sqsEvent(
      sqsRecord('m1', { conversationId: 'a', message: 'first', requestId: 'r1' }),
      sqsRecord('m2', { conversationId: 'b', message: 'second', requestId: 'r2' }),
    ), lambdaContext());
    // Both turns are under way before either finishes.
    await vi.waitFor(() => expect(started.map((input) => input.requestId)).toEqual(['r1', 'r2']));
    finish('r2');
    finish('r1');

    await expect(running).resolves.toEqual({ batchItemFailures: [] });
  });

  it('keeps conversations of different owners apart, passing each owner to its turn (the queue trusted to name owners)', async () => {
    const { work, started, finish } = gatedWorker({ trustedSenders: ['queue'] });

    const running = work(sqsEvent(
      sqsRecord('m1', { conversationId: 'same', message: 'first', requestId: 'r1', owner: 'alice' }),
      sqsRecord('m2', { conversationId: 'same', message: 'second', requestId: 'r2', owner: 'bob' }),
    ), lambdaContext());
    await vi.waitFor(() => expect(started.map((input) => input.owner)).toEqual(['alice', 'bob']));
    finish('r1');
    finish('r2');

    await expect(running).resolves.toEqual({ batchItemFailures: [] });
  });

  it('reports the later records of a conversation failed without running them when an earlier one fails', async () => {
    const { work, model, store } = realWorker([new ModelError('model_unavailable', 'HTTP 503'), echo]);

    const response = await work(sqsEvent(
      sqsRecord('m1', { conversationId: 'c', message: 'first', requestId: 'r1' }),
      sqsRecord('m2', { conversationId: 'c', message: 'second', requestId: 'r2' }),
      sqsRecord('m3', { conversationId: 'other', message: 'unrelated', requestId: 'r3' }),
    ), lambdaContext());

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
    expect(model!.requests.map(lastQuestion).sort()).toEqual(['first', 'unrelated']);
    expect(await store.readAll({ conversationId: 'c' })).toEqual([]);
  });

  it.each([
    ['the conversation is busy (409)', new ConflictError('conversation_busy', 'busy')],
    ['the model failed (502)', new ModelError('model_unavailable', 'HTTP 503')],
    ['the model timed out (504)', new ModelError('model_timeout', 'no answer', { timeout: true })],
    ['the store failed', new StoreError('store_unavailable', 'throttled')],
    ['something unexpected broke', new TypeError('undefined is not a function')],
  ])('reports a record failed when %s', async (_case, error) => {
    const { config } = agentFixture([]);
    const logger = recordingLogger();
    const work = createQueueWorker({ agent: { ask: () => Promise.reject(error), decide: () => Promise.reject(error) }, announcer: recordingAnnouncer().announcer, logger, config });

    const response = await work(sqsEvent(sqsRecord('m1', { conversationId: 'c', message: 'hi', requestId: 'r1' })), lambdaContext());

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    expect(logger.entries.find((entry) => entry.fields?.messageId === 'm1')?.fields).toMatchObject({ conversationId: 'c', requestId: 'r1', error: error.message });
  });

  it('counts a turn that stopped with error as done: stored, announced and not retried', async () => {
    const weatherCall = toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: '上海' } }]);
    const { work, store, announced } = realWorker([weatherCall, new ModelError('model_timeout', 'no answer', { timeout: true })]);

    const response = await work(sqsEvent(sqsRecord('m1', { conversationId: 'half', message: 'hi', requestId: 'r1' })), lambdaContext());

    expect(response).toEqual({ batchItemFailures: [] });
    expect(((await store.readAll({ conversationId: 'half' }))[0]?.result() as TurnResult).stopReason).toBe('error');
    expect(announced).toMatchObject([{ requestId: 'r1', result: { stopReason: 'error', error: { code: 'model_timeout' } } }]);
  });

  it('makes one turn for a redelivered record and announces it on each delivery', async () => {
    const { work, model, store, announced } = realWorker([echo, echo]);
    const delivery = sqsEvent(sqsRecord('m1', { conversationId: 'c', message: 'hi', requestId: 'r1' }));

    const first = await work(delivery, lambdaContext());
    const second = await work(delivery, lambdaContext());

    expect([first, second]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(model!.requests).toHaveLength(1);
    expect(await store.readAll({ conversationId: 'c' })).toHaveLength(1);
    expect(announced).toHaveLength(2);
    expect(announced[1]).toEqual(announced[0]);
  });

  it('reports a record failed when its announcement fails, and its redelivery replays the turn and announces it', async () => {
    const { work, model, announced } = realWorker([echo, echo], { failAnnouncement: (call) => call === 1 });
    const delivery = sqsEvent(sqsRecord('m1', { conversationId: 'c', message: 'hi', requestId: 'r1' }));

    expect(await work(delivery, lambdaContext())).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    expect(await work(delivery, lambdaContext())).toEqual({ batchItemFailures: [] });

    expect(model!.requests).toHaveLength(1);
    expect(announced.map(({ requestId, result }) => [requestId, result.turn])).toEqual([['r1', 1], ['r1', 1]]);
  });
});

describe('the queue worker near the Lambda deadline', () => {
  const records = () => sqsEvent(
    sqsRecord('m1', { conversationId: 'c', message: 'first', requestId: 'r1' }),
    sqsRecord('m2', { conversationId: 'c', message: 'second', requestId: 'r2' }),
    sqsRecord('m3', { conversationId: 'd', message: 'third', requestId: 'r3' }),
  );

  it('passes deadlineAt = now + the remaining time, less the time kept to answer, to every turn', async () => {
    const { work, started, finish } = gatedWorker({ now: () => 1_000_000 });

    const running = work(sqsEvent(sqsRecord('m1', { conversationId: 'c', message: 'hi', requestId: 'r1' })), lambdaContext({ remainingMs: 120_000 }));
    await vi.waitFor(() => expect(started).toHaveLength(1));
    finish('r1');
    await running;

    expect(started[0]).toMatchObject({ conversationId: 'c', message: 'hi', requestId: 'r1', deadlineAt: 1_120_000 - ANSWER_MARGIN_MS });
  });

  it('starts no record when less than the default margin (10 s + turn.reserveSeconds) is left', async () => {
    const { work, model } = realWorker([echo, echo, echo]);

    const response = await work(records(), lambdaContext({ remainingMs: WORKER_START_MARGIN_MS + 3_000 - 1 }));

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }] });
    expect(model!.requests).toHaveLength(0);
  });

  it('honours a configured margin', async () => {
    const { config, agent, model } = agentFixture([echo]);
    const work = createQueueWorker({ agent, announcer: recordingAnnouncer().announcer, logger: recordingLogger(), config, startMarginMs: 1_000 });

    const response = await work(sqsEvent(sqsRecord('m1', { conversationId: 'c', message: 'hi', requestId: 'r1' })), lambdaContext({ remainingMs: 5_000 + ANSWER_MARGIN_MS }));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(model!.requests).toHaveLength(1);
  });

  it('leaves the rest of a conversation for redelivery when the deadline comes close during the batch', async () => {
    // Prepare: the clock jumps 50 s while the first turn of conversation c runs.
    let clock = 0;
    const asked: string[] = [];
    const agent = {
      ask: async (input: AskInput) => {
        asked.push(input.requestId!);
        await new Promise((resolve) => setImmediate(resolve));
        if (input.requestId === 'r1') clock += 50_000;
        return turnResult(input);
      },
      decide: () => Promise.reject(new Error('no decisions in this test')),
    };
    const { config } = agentFixture([]);
    const work = createQueueWorker({ agent, announcer: recordingAnnouncer().announcer, logger: recordingLogger(), config, startMarginMs: 20_000, now: () => clock });

    // Act: 60 s left at the start, 10 s after the first turn.
    const response = await work(records(), lambdaContext({ remainingMs: 60_000 }));

    // Assess: r2 never ran; r3 (another conversation) had started at once.
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
    expect(asked.sort()).toEqual(['r1', 'r3']);
  });
});
