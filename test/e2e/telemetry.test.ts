/**
 * OpenTelemetry through `npm start`: a real turn's spans and metrics, exported as OTLP/HTTP (JSON)
 * to a receiver the test runs, in the GenAI semantic conventions: one trace per turn, joined to
 * the caller's traceparent, an `invoke_agent` span with a `chat` span per model call, an
 * `execute_tool` span per tool call and a span per store write beneath it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { weatherFor } from '../../lib/demo/tools.ts';
import { demoServerYml, serversPerTest } from '../support/configured-local-server.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { postForEvents } from '../support/sse-client.ts';
import { textReply, toolCallsReply, type ChatRequestBody } from '../support/scripted-openai-server.ts';
import { answered, questionOf, systemPromptOf } from '../support/wire-requests.ts';

const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const CALLER_TRACEPARENT = `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`;
const MODEL = 'gpt-4-turbo';

async function postWithTrace(url: string, body: unknown, traceparent?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(traceparent ? { traceparent } : {}) }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/** The finished turn span of a conversation's turn, once the receiver has it (it is flushed last). */
async function turnSpan(receiver: OtlpReceiver, conversationId: string, turn: number, stopReason?: string): Promise<ReceivedSpan> {
  const matches = (span: ReceivedSpan) =>
    span.name === 'invoke_agent mcp-agent' && span.attributes['gen_ai.conversation.id'] === conversationId && span.attributes['mcp_agent.turn'] === turn && (stopReason === undefined || span.attributes['mcp_agent.stop_reason'] === stopReason);
  await receiver.waitFor((received) => received.spans.some(matches));
  return receiver.spans.find(matches)!;
}

const childrenOf = (receiver: OtlpReceiver, parent: ReceivedSpan) => receiver.spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);
const named = (spans: ReceivedSpan[], prefix: string) => spans.filter((span) => span.name.startsWith(prefix));

describe('OpenTelemetry through npm start', () => {
  const servers = serversPerTest();
  let receiver: OtlpReceiver;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('exports one trace per JSON turn, joined to the caller\'s traceparent: invoke_agent over chat, execute_tool and store-write spans, without contents', async () => {
    // Prepare
    const model = await servers.model([toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]), textReply('上海晴。')]);
    const local = await servers.local(demoServerYml(), model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });

    // Act
    const response = await postWithTrace(`${local.server.url}/conversations/traced/messages`, { message: '上海天气怎么样？' }, CALLER_TRACEPARENT);

    // Assess: the turn's span is a child of the caller's.
    expect(response.status).toBe(200);
    const turn = await turnSpan(receiver, 'traced', 1);
    expect(turn).toMatchObject({ traceId: CALLER_TRACE_ID, parentSpanId: CALLER_SPAN_ID, kind: 1, serviceName: 'mcp-agent' });
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'mcp-agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': MODEL,
      'gen_ai.conversation.id': 'traced',
      'mcp_agent.turn': 1,
      'mcp_agent.stop_reason': 'completed',
      'mcp_agent.rounds': 2,
      'mcp_agent.tool_calls': 1,
      'gen_ai.usage.input_tokens': response.body.usage.promptTokens,
      'gen_ai.usage.output_tokens': response.body.usage.completionTokens,
    });
    const children = childrenOf(receiver, turn);
    const chats = named(children, 'chat ');
    expect(chats.map((span) => span.name)).toEqual([`chat ${MODEL}`, `chat ${MODEL}`]);
    expect(chats.map((span) => span.kind)).toEqual([3, 3]);
    expect(chats.map((span) => span.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']]);
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': MODEL,
      'gen_ai.response.model': MODEL,
      'gen_ai.usage.input_tokens': 188,
      'gen_ai.usage.output_tokens': 16,
      'gen_ai.conversation.id': 'traced',
      'server.address': '127.0.0.1',
    });
    const [tool] = named(children, 'execute_tool ');
    expect(tool).toMatchObject({ name: 'execute_tool getWeather', kind: 1 });
    expect(tool!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'getWeather',
      'gen_ai.tool.call.id': 'call_weather',
      'gen_ai.tool.type': 'extension',
      'mcp_agent.tool.server': 'demo',
      'mcp_agent.tool.outcome': 'ok',
    });
    // The claim and the completion, each a write to the conversation table.
    const writes = children.filter((span) => span.attributes['db.system.name'] === 'aws.dynamodb');
    expect(writes.map((span) => [span.attributes['db.operation.name'], span.attributes['mcp_agent.turn.status']])).toEqual(expect.arrayContaining([['create', 'running'], ['update', 'complete']]));
    // Contents stay out unless telemetry.captureContent says otherwise.
    for (const span of receiver.spans) {
      expect(Object.keys(span.attributes).filter((key) => ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'].includes(key)), span.name).toEqual([]);
    }
    // The GenAI metrics beside the spans.
    await receiver.waitFor((received) => received.metrics.some((metric) => metric.name === 'gen_ai.client.token.usage') && received.metrics.some((metric) => metric.name === 'gen_ai.client.operation.duration'));
    const tokenPoints = receiver.metrics.filter((metric) => metric.name === 'gen_ai.client.token.usage').flatMap((metric) => metric.points);
    expect(receiver.metrics.find((metric) => metric.name === 'gen_ai.client.token.usage')!.unit).toBe('{token}');
    const tokensOf = (type: string) => tokenPoints.filter((point) => point.attributes['gen_ai.token.type'] === type).reduce((sum, point) => sum + point.sum, 0);
    expect([tokensOf('input'), tokensOf('output')]).toEqual([188 + 192, 16 + 171]);
    expect(tokenPoints[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': MODEL });
    const durations = receiver.metrics.filter((metric) => metric.name === 'gen_ai.client.operation.duration').flatMap((metric) => metric.points);
    expect(receiver.metrics.find((metric) => metric.name === 'gen_ai.client.operation.duration')!.unit).toBe('s');
    expect(durations.filter((point) => point.attributes['gen_ai.operation.name'] === 'chat').reduce((sum, point) => sum + point.count, 0)).toBe(2);
    expect(durations.filter((point) => point.attributes['gen_ai.operation.name'] === 'invoke_agent').reduce((sum, point) => sum + point.count, 0)).toBe(1);
  });

  it('puts the messages, the reply and the tool\'s arguments and result on the spans of an SSE turn when telemetry.captureContent is on', async () => {
    // Prepare
    const model = await servers.model([toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '北京' } }]), textReply('北京多云。')]);
    const local = await servers.local(`telemetry: { captureContent: true }\n${demoServerYml()}`, model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });

    // Act: no traceparent: the turn starts its own trace.
    const exchange = await postForEvents(`${local.server.url}/conversations/streamed/messages`, { body: { message: '北京天气？' } });

    // Assess
    expect(exchange.status).toBe(200);
    const turn = await turnSpan(receiver, 'streamed', 1, 'completed');
    expect(turn.parentSpanId).toBeUndefined();
    const children = childrenOf(receiver, turn);
    const [first, second] = named(children, 'chat ');
    expect(JSON.parse(first!.attributes['gen_ai.input.messages'] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: '北京天气？' }] }]);
    expect(JSON.parse(first!.attributes['gen_ai.system_instructions'] as string)[0]).toMatchObject({ type: 'text' });
    expect(JSON.parse(first!.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_weather', name: 'getWeather', arguments: { city: '北京' } }], finish_reason: 'tool_calls' },
    ]);
    expect(JSON.parse(second!.attributes['gen_ai.output.messages'] as string)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: '北京多云。' }], finish_reason: 'stop' }]);
    const [tool] = named(children, 'execute_tool ');
    expect(JSON.parse(tool!.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ city: '北京' });
    expect(tool!.attributes['gen_ai.tool.call.result']).toContain(weatherFor('北京').condition);
  });

  it('shows a paused turn\'s call waiting for approval, and the decision that let it run, each request its own trace', async () => {
    // Prepare
    const model = await servers.model([
      toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]),
      textReply('订单已取消。'),
    ]);
    const local = await servers.local(demoServerYml(', requireApproval: destructive'), model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const url = local.server.url;

    // Act: the question pauses; the decision (from another trace) resumes it.
    const paused = await postWithTrace(`${url}/conversations/approved/messages`, { message: '取消订单 ORD20250514118567' }, CALLER_TRACEPARENT);
    const decidedTrace = `00-${'5'.repeat(32)}-${'6'.repeat(16)}-01`;
    const decided = await postWithTrace(`${url}/conversations/approved/approvals`, { decisions: [{ toolCallId: 'call_cancel', approved: true }] }, decidedTrace);

    // Assess: the pause.
    expect([paused.body.stopReason, decided.body.stopReason]).toEqual(['approval_required', 'completed']);
    const pausedTurn = await turnSpan(receiver, 'approved', 1, 'approval_required');
    expect(pausedTurn.traceId).toBe(CALLER_TRACE_ID);
    const waiting = named(childrenOf(receiver, pausedTurn), 'execute_tool ');
    expect(waiting.map((span) => [span.name, span.attributes['gen_ai.tool.call.id'], span.attributes['mcp_agent.tool.server'], span.attributes['mcp_agent.tool.outcome']])).toEqual([
      ['execute_tool batchCancelOrdersByOrderNo', 'call_cancel', 'demo', 'approval_required'],
    ]);
    expect(named(childrenOf(receiver, pausedTurn), 'update ').map((span) => span.attributes['mcp_agent.turn.status'])).toContain('paused');
    // The decision: the same turn, in the decider's trace; the call ran, approved, after its wait.
    const resumed = await turnSpan(receiver, 'approved', 1, 'completed');
    expect(resumed).toMatchObject({ traceId: '5'.repeat(32), parentSpanId: '6'.repeat(16) });
    expect(resumed.attributes['mcp_agent.decisions']).toBe(1);
    const [ran] = named(childrenOf(receiver, resumed), 'execute_tool ');
    expect(ran!.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'call_cancel', 'mcp_agent.approval.decision': 'approved', 'mcp_agent.tool.outcome': 'ok' });
    expect(ran!.attributes['mcp_agent.approval.wait_ms']).toEqual(expect.any(Number));
    expect(named(childrenOf(receiver, resumed), 'chat ')).toHaveLength(1);
  });

  it('marks the chat span and the turn span failed, with the error code, when the model fails', async () => {
    // Prepare: a model that answers 500 (no retries).
    const model = await servers.model([{ status: 500, body: { error: { message: 'upstream exploded', type: 'server_error' } } }]);
    const local = await servers.local(`model: { maxRetries: 0 }\n${demoServerYml()}`, model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });

    // Act
    const response = await postWithTrace(`${local.server.url}/conversations/failing/messages`, { message: '你好' }, CALLER_TRACEPARENT);

    // Assess
    expect(response.status).toBe(502);
    await receiver.waitFor((received) => received.spans.some((span) => span.name === 'invoke_agent mcp-agent' && span.traceId === CALLER_TRACE_ID));
    const turn = receiver.spans.find((span) => span.name === 'invoke_agent mcp-agent')!;
    expect([turn.attributes['error.type'], turn.status.code]).toEqual([response.body.error.code, 2]);
    const [chat] = named(childrenOf(receiver, turn), 'chat ');
    expect([chat!.attributes['error.type'], chat!.status.code]).toEqual(['model_unavailable', 2]);
    await receiver.waitFor((received) => received.metrics.some((metric) => metric.name === 'gen_ai.client.operation.duration'));
    const failedCalls = receiver.metrics.flatMap((metric) => metric.points).filter((point) => point.attributes['error.type'] === 'model_unavailable' && point.attributes['gen_ai.operation.name'] === 'chat');
    expect(failedCalls.reduce((sum, point) => sum + point.count, 0)).toBe(1);
  });

  it('shows a request refused because the conversation is busy: the error code on its turn span, and nothing run or written under it', async () => {
    // Prepare: a model that holds the first turn until the second request has been answered.
    let asked!: () => void;
    const firstAsked = new Promise<void>((resolve) => (asked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const model = await servers.model(async () => {
      asked();
      await released;
      return textReply('好的。');
    });
    const local = await servers.local(demoServerYml(), model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const url = `${local.server.url}/conversations/busy/messages`;

    // Act
    const first = postWithTrace(url, { message: '第一个问题' });
    await firstAsked;
    const second = await postWithTrace(url, { message: '第二个问题' }, CALLER_TRACEPARENT);
    release();
    expect((await first).status).toBe(200);

    // Assess
    expect(second.status).toBe(409);
    await receiver.waitFor((received) => received.spans.some((span) => span.name === 'invoke_agent mcp-agent' && span.traceId === CALLER_TRACE_ID));
    const refused = receiver.spans.find((span) => span.name === 'invoke_agent mcp-agent' && span.traceId === CALLER_TRACE_ID)!;
    expect([refused.attributes['error.type'], refused.status.code, refused.attributes['mcp_agent.stop_reason']]).toEqual([second.body.error.code, 2, undefined]);
    // Refused on reading the running turn: no model call, no write.
    expect(childrenOf(receiver, refused)).toEqual([]);
  });

  it('traces every model call of plan-execute (planner, executor, summary) and the executor\'s tool call under the one turn', async () => {
    // Prepare
    const phaseOf = (body: ChatRequestBody) => {
      const system = systemPromptOf(body);
      return system.includes('## Planning') ? 'planner' : system.includes('## Final answer') ? 'summary' : 'executor';
    };
    const model = await servers.model((body) => {
      switch (phaseOf(body)) {
        case 'planner':
          if (questionOf(body).includes('Progress of the plan')) return textReply('continue');
          return answered(body, 'planning') ? textReply('计划好了。') : toolCallsReply([{ id: 'plan_1', name: 'planning', arguments: { action: 'create', tasks: [{ title: '查上海天气' }] } }]);
        case 'executor':
          return answered(body, 'getWeather') ? textReply('上海晴。') : toolCallsReply([{ id: 'call_sh', name: 'getWeather', arguments: { city: '上海' } }]);
        case 'summary':
          return textReply('上海晴。');
      }
    });
    const local = await servers.local(`strategy: plan-execute\nmaxRounds: 20\n${demoServerYml()}`, model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });

    // Act
    const response = await postWithTrace(`${local.server.url}/conversations/planned/messages`, { message: '查上海天气' }, CALLER_TRACEPARENT);

    // Assess: one chat span per request the model received, all in the turn.
    expect(response.body.stopReason).toBe('completed');
    const turn = await turnSpan(receiver, 'planned', 1, 'completed');
    const children = childrenOf(receiver, turn);
    expect(named(children, 'chat ')).toHaveLength(model.requests.length);
    expect(named(children, 'execute_tool ').map((span) => span.attributes['gen_ai.tool.name'])).toContain('getWeather');
    expect(receiver.spans.filter((span) => span.traceId === CALLER_TRACE_ID && span.name.startsWith('chat ')).every((span) => span.parentSpanId === turn.spanId)).toBe(true);
  });
});
