/**
 * The worker Lambda entry (functions/worker.ts) with OpenTelemetry on: a turn asked for through SQS
 * joins the trace of the `traceparent` message attribute its sender set, and one asked for by an
 * EventBridge event the trace its detail names, each exported to a local OTLP/HTTP receiver.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { stubLambdaEnvironment } from '../support/lambda-environment.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import sqsBatch from '../fixtures/events/sqs-batch.json' with { type: 'json' };
import eventBridgeEvent from '../fixtures/events/eventbridge-turn-requested.json' with { type: 'json' };

const eventBridge = mockClient(EventBridgeClient);
const workerContext = () => lambdaContext({ functionName: 'mcp-agent-worker', remainingMs: 120_000 });

describe('the worker Lambda handler with telemetry on', () => {
  let table: LocalTable;
  let model: ScriptedOpenAIServer;
  let receiver: OtlpReceiver;
  let environment: { restore(): void } | undefined;
  let worker: typeof import('../../functions/worker.ts');

  beforeAll(async () => {
    table = await startLocalTable({ tableName: 'worker-telemetry' });
    receiver = await startOtlpReceiver();
    model = await startScriptedOpenAIServer([
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('上海今天天气不错。'),
      textReply('订单的事稍后处理。'),
    ]);
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'event-1' }] });
    environment = stubLambdaEnvironment({
      modelBaseURL: model.baseURL,
      table,
      variables: { LLM_MODEL: 'gpt-4-turbo', EVENT_BUS_NAME: 'mcp-agent-bus', POWERTOOLS_SERVICE_NAME: 'orders-agent', POWERTOOLS_LOG_LEVEL: 'SILENT', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    worker = await import('../../functions/worker.ts');
  });

  afterAll(async () => {
    await worker?.agent.close();
    await model?.close();
    await receiver?.close();
    await table?.close();
    environment?.restore();
    eventBridge.restore();
  });

  it('joins an SQS record\'s turn to the trace of its traceparent message attribute', async () => {
    // Prepare: the first record of the fixture batch, as a sender that traces would send it.
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const record = { ...sqsBatch.Records[0]!, messageAttributes: { traceparent: { stringValue: traceparent, stringListValues: [], binaryListValues: [], dataType: 'String' } } };

    // Act
    const response = await worker.handler({ Records: [record] }, workerContext());

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    await receiver.waitFor((received) => received.spans.some((span) => span.name === 'invoke_agent orders-agent' && span.traceId === '0af7651916cd43dd8448eb211c80319c'));
    const turn = receiver.spans.find((span) => span.name === 'invoke_agent orders-agent')!;
    expect(turn).toMatchObject({ parentSpanId: 'b7ad6b7169203331', serviceName: 'orders-agent' });
    expect(turn.attributes).toMatchObject({ 'gen_ai.conversation.id': 'weather-sqs', 'mcp_agent.request.id': 'req-sqs-1', 'mcp_agent.turn': 1, 'mcp_agent.stop_reason': 'completed' });
    const children = receiver.spans.filter((span) => span.parentSpanId === turn.spanId);
    expect(children.map((span) => span.name).sort()).toEqual(['chat gpt-4-turbo', 'chat gpt-4-turbo', 'create worker-telemetry', 'execute_tool getWeather', 'update worker-telemetry']);
  });

  it('joins an EventBridge event\'s turn to the trace its detail names', async () => {
    // Act
    const event = { ...eventBridgeEvent, detail: { ...eventBridgeEvent.detail, traceparent: '00-11111111111111111111111111111111-2222222222222222-01' } };
    const result = await worker.handler(event, workerContext());

    // Assess
    expect(result).toMatchObject({ conversationId: 'orders-events', stopReason: 'completed' });
    await receiver.waitFor((received) => received.spans.some((span) => span.name === 'invoke_agent orders-agent' && span.traceId === '1'.repeat(32)));
    const turn = receiver.spans.find((span) => span.name === 'invoke_agent orders-agent' && span.traceId === '1'.repeat(32))!;
    expect(turn).toMatchObject({ parentSpanId: '2'.repeat(16) });
    expect(turn.attributes).toMatchObject({ 'gen_ai.conversation.id': 'orders-events', 'mcp_agent.stop_reason': 'completed' });
  });
});
