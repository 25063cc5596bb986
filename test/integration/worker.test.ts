/**
 * The real worker Lambda entry (functions/worker.ts with functions/runtime.ts behind it) invoked
 * locally with real SQS and EventBridge event shapes: agent.yml read from AGENT_CONFIG, the demo MCP
 * server over stdio, a scripted OpenAI-compatible server over HTTP, dynalite for the table, and
 * EventBridge mocked at the SDK seam.
 */
import { createHash, randomUUID } from 'node:crypto';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { stubLambdaEnvironment } from '../support/lambda-environment.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import directInvoke from '../fixtures/events/direct-invoke.json' with { type: 'json' };
import eventBridgeEvent from '../fixtures/events/eventbridge-turn-requested.json' with { type: 'json' };
import sqsBatch from '../fixtures/events/sqs-batch.json' with { type: 'json' };
import sqsEventBridgeRecord from '../fixtures/events/sqs-eventbridge-record.json' with { type: 'json' };

const EVENT_BUS = 'mcp-agent-bus';

// Before the worker module is imported, so the client it builds at module scope is the mocked one.
const eventBridge = mockClient(EventBridgeClient);

type Worker = typeof import('../../functions/worker.ts');

const workerContext = () => lambdaContext({ functionName: 'mcp-agent-worker', remainingMs: 120_000 });

/** The details of the AgentTurnCompleted events put on the bus since the last reset. */
function announcedDetails(): Array<Record<string, unknown>> {
  return eventBridge.commandCalls(PutEventsCommand).flatMap((call) =>
    (call.args[0].input.Entries ?? []).map((entry) => {
      expect(entry).toMatchObject({ EventBusName: EVENT_BUS, Source: 'mcp-agent', DetailType: 'AgentTurnCompleted' });
      return JSON.parse(entry.Detail!) as Record<string, unknown>;
    }),
  );
}

describe('the worker Lambda handler, invoked locally', () => {
  let table: LocalTable;
  let model: ScriptedOpenAIServer;
  let environment: { restore(): void } | undefined;
  let worker: Worker;

  beforeAll(async () => {
    table = await startLocalTable({ tableName: 'worker-conversations' });
    model = await startScriptedOpenAIServer([
      // The SQS batch: two records of one conversation, in order.
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('上海今天天气不错。'),
      textReply('明天也差不多。'),
      // The batch with a poison record: only its valid record asks the model.
      textReply('这是今天的新闻。'),
      // The EventBridge event a rule delivered to SQS.
      textReply('科技新闻两条。'),
      // The EventBridge event invoked directly.
      toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]),
      textReply('订单 ORD20250514118567 已取消。'),
      // The direct invoke.
      textReply('我可以调用 foo、getWeather、getNews 和 batchCancelOrdersByOrderNo。'),
      // The traced invoke.
      textReply('订单号 ORD20250514118567 的取消结果是私密的。'),
    ]);
    environment = stubLambdaEnvironment({
      agentYml: ['maxRounds: 4'],
      modelBaseURL: model.baseURL,
      table,
      variables: { LLM_MODEL: 'gpt-4-turbo', EVENT_BUS_NAME: EVENT_BUS, POWERTOOLS_SERVICE_NAME: 'mcp-agent', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    });
    worker = await import('../../functions/worker.ts');
  });

  afterAll(async () => {
    await worker?.agent.close();
    await model?.close();
    await table?.close();
    environment?.restore();
    eventBridge.restore();
  });

  beforeEach(() => {
    eventBridge.reset();
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: randomUUID() }] });
  });

  it('runs one turn per SQS record, stores them in order and announces each', async () => {
    const response = await worker.handler(sqsBatch, workerContext());

    expect(response).toEqual({ batchItemFailures: [] });
    // The model was offered the demo MCP server's tools, and the weather call ran against it.
    const firstRequest = model.requests[0]!.body as { tools: Array<{ function: { name: string } }> };
    expect(firstRequest.tools.map((tool) => tool.function.name).sort()).toEqual(['batchCancelOrdersByOrderNo', 'foo', 'getNews', 'getWeather']);
    const stored = await worker.agent.getConversation({ conversationId: 'weather-sqs' });
    expect(stored.turns.map((turn) => [turn.turn, turn.requestId, turn.stopReason])).toEqual([[1, 'req-sqs-1', 'completed'], [2, 'req-sqs-2', 'completed']]);
    expect(stored.turns[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(announcedDetails()).toEqual([
      expect.objectContaining({ conversationId: 'weather-sqs', turn: 1, reply: '上海今天天气不错。', requestId: 'req-sqs-1', toolCalls: [expect.objectContaining({ name: 'getWeather', ok: true })] }),
      expect.objectContaining({ conversationId: 'weather-sqs', turn: 2, reply: '明天也差不多。', requestId: 'req-sqs-2', stopReason: 'completed' }),
    ]);
  });

  it('replays a redelivered record without asking the model again, and announces it again', async () => {
    const requestsBefore = model.requests.length;
    const redelivered = { Records: [{ ...sqsBatch.Records[0]!, attributes: { ...sqsBatch.Records[0]!.attributes, ApproximateReceiveCount: '2' } }] };

    const response = await worker.handler(redelivered, workerContext());

    expect(response).toEqual({ batchItemFailures: [] });
    expect(model.requests).toHaveLength(requestsBefore);
    expect((await worker.agent.getConversation({ conversationId: 'weather-sqs' })).turns).toHaveLength(2);
    expect(announcedDetails()).toEqual([expect.objectContaining({ conversationId: 'weather-sqs', turn: 1, requestId: 'req-sqs-1', reply: '上海今天天气不错。' })]);
  });

  it('reports a poison record as the only batch item failure', async () => {
    const template = sqsBatch.Records[1]!;
    const valid = JSON.stringify({ conversationId: 'news-sqs', message: '获取新闻', requestId: 'req-sqs-3' });
    const poison = JSON.stringify({ conversationId: 'news-sqs', message: '没有 requestId' });
    const batch = {
      Records: [
        { ...template, messageId: 'd0a7f3c2-5b9e-4d1a-8c6f-3e2b1a0f9d87', body: valid, md5OfBody: md5(valid) },
        { ...template, messageId: 'f4e3d2c1-b0a9-4876-9543-210fedcba987', body: poison, md5OfBody: md5(poison) },
      ],
    };

    const response = await worker.handler(batch, workerContext());

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'f4e3d2c1-b0a9-4876-9543-210fedcba987' }] });
    expect((await worker.agent.getConversation({ conversationId: 'news-sqs' })).turns.map((turn) => turn.requestId)).toEqual(['req-sqs-3']);
    expect(announcedDetails()).toEqual([expect.objectContaining({ conversationId: 'news-sqs', requestId: 'req-sqs-3' })]);
  });

  it('runs the turn of an EventBridge event that a rule delivered through SQS', async () => {
    const response = await worker.handler(sqsEventBridgeRecord, workerContext());

    expect(response).toEqual({ batchItemFailures: [] });
    expect((await worker.agent.getConversation({ conversationId: 'orders-queued' })).turns.map((turn) => turn.requestId)).toEqual(['evt-c1b3f1d2-3a8e-4f0b']);
    expect(announcedDetails()).toEqual([expect.objectContaining({ conversationId: 'orders-queued', turn: 1, reply: '科技新闻两条。', requestId: 'evt-c1b3f1d2-3a8e-4f0b' })]);
  });

  it('returns the turn result for an EventBridge event invoked directly', async () => {
    const result = await worker.handler(eventBridgeEvent, workerContext());

    expect(result).toMatchObject({
      conversationId: 'orders-events',
      turn: 1,
      reply: '订单 ORD20250514118567 已取消。',
      stopReason: 'completed',
      rounds: 2,
      toolCalls: [{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] }, ok: true }],
    });
    expect(announcedDetails()).toEqual([{ ...result, requestId: 'evt-6a7e8feb-b491-4cf7' }]);
  });

  it('returns the turn result for a direct invoke', async () => {
    const result = await worker.handler(directInvoke, workerContext());

    expect(result).toMatchObject({ conversationId: 'direct-invoke', turn: 1, stopReason: 'completed', rounds: 1, reply: expect.stringContaining('getWeather') });
    expect((await worker.agent.getConversation({ conversationId: 'direct-invoke' })).turns).toHaveLength(1);
    expect(announcedDetails()).toEqual([{ ...result, requestId: 'invoke-7d0f5a3e' }]);
  });

  it('throws for a direct invoke with an invalid payload, naming the field to fix', async () => {
    const requestsBefore = model.requests.length;

    await expect(worker.handler({ conversationId: 'direct-invoke', question: 'hi', requestId: 'x-1' }, workerContext())).rejects.toThrow(/"question"/);
    expect(model.requests).toHaveLength(requestsBefore);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });
});

describe('the worker Lambda handler, when an asynchronous sender names an owner', () => {
  let table: LocalTable;
  let model: ScriptedOpenAIServer;
  let environment: { restore(): void } | undefined;
  let worker: Worker;

  beforeAll(async () => {
    table = await startLocalTable({ tableName: 'worker-owner-conversations' });
    model = await startScriptedOpenAIServer([textReply('不应回答')]);
    // No OWNER_SOURCES: the stack's default, where no sender may act for a user.
    environment = stubLambdaEnvironment({ modelBaseURL: model.baseURL, table, variables: { EVENT_BUS_NAME: EVENT_BUS, POWERTOOLS_LOG_LEVEL: 'SILENT' } });
    vi.resetModules();
    worker = await import('../../functions/worker.ts');
  });

  afterAll(async () => {
    await worker?.agent.close();
    await model?.close();
    await table?.close();
    environment?.restore();
  });

  beforeEach(() => {
    eventBridge.reset();
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: randomUUID() }] });
  });

  const victim = { owner: 'arn:aws:iam::123456789012:user/victim' };

  it('refuses an SQS message naming an owner: a failed record that never asks the model', async () => {
    const body = JSON.stringify({ conversationId: 'victim-chat', message: '把之前的对话复述一遍', requestId: 'steal-1', ...victim });
    const batch = { Records: [{ ...sqsBatch.Records[0]!, body, md5OfBody: md5(body) }] };

    const response = await worker.handler(batch, workerContext());

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: sqsBatch.Records[0]!.messageId }] });
    expect(model.requests).toHaveLength(0);
    await expect(worker.agent.getConversation({ conversationId: 'victim-chat', ...victim })).rejects.toMatchObject({ code: 'conversation_not_found' });
  });

  it('refuses an EventBridge event from a foreign source naming an owner, delivered through SQS', async () => {
    const envelope = JSON.parse(sqsEventBridgeRecord.Records[0]!.body);
    const body = JSON.stringify({ ...envelope, source: 'com.attacker.tools', detail: { ...envelope.detail, ...victim } });
    const batch = { Records: [{ ...sqsEventBridgeRecord.Records[0]!, body, md5OfBody: md5(body) }] };

    expect(await worker.handler(batch, workerContext())).toEqual({ batchItemFailures: [{ itemIdentifier: sqsEventBridgeRecord.Records[0]!.messageId }] });
    expect(model.requests).toHaveLength(0);
  });

  it.each([
    ['an EventBridge event', { ...eventBridgeEvent, detail: { ...eventBridgeEvent.detail, ...victim } }],
    ['a direct invoke', { ...directInvoke, ...victim }],
  ])('throws for %s naming an owner, and announces nothing', async (_kind, payload) => {
    await expect(worker.handler(payload, workerContext())).rejects.toMatchObject({ code: 'owner_not_allowed' });
    expect(model.requests).toHaveLength(0);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });
});

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
