/**
 * One trace crosses the service: the trace context of a tool call reaches its MCP server over
 * Streamable HTTP, as the W3C traceparent header and in the request's `_meta` (the MCP proposal for
 * trace context propagation), through `npm start` with a real MCP SDK server that records both.
 * With telemetry on it names the call's execute_tool span; with telemetry off the caller's own
 * context passes through unchanged.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCallerEchoHttpServer, type CallerEchoHttpServer } from '../fixtures/caller-echo-server.ts';
import { serversPerTest } from '../support/configured-local-server.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';

const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_TRACEPARENT = `00-${CALLER_TRACE_ID}-00f067aa0ba902b7-01`;

async function askWithTrace(url: string): Promise<any> {
  const response = await fetch(`${url}/conversations/echoed/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: CALLER_TRACEPARENT, tracestate: 'vendor=opaque' },
    body: JSON.stringify({ message: '我是谁？' }),
  });
  return response.json();
}

describe('the trace context of a tool call, as its MCP server sees it', () => {
  const servers = serversPerTest();
  let echo: CallerEchoHttpServer;
  let receiver: OtlpReceiver;

  beforeEach(async () => {
    echo = await startCallerEchoHttpServer();
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await echo.close();
    await receiver.close();
  });

  const toolCallRequest = () => echo.requests.find((request) => request.body.includes('"tools/call"'))!;
  const script = () => [toolCallsReply([{ id: 'call_whoami', name: 'whoami', arguments: {} }]), textReply('你是访客。')];
  const yml = () => `mcpServers:\n  echo: { type: http, url: ${JSON.stringify(echo.url)} }\n`;

  it('names the execute_tool span in the traceparent header and in _meta, with the caller\'s tracestate, when telemetry is on', async () => {
    // Prepare
    const model = await servers.model(script());
    const local = await servers.local(yml(), model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });

    // Act
    const result = await askWithTrace(local.server.url);

    // Assess
    expect(result.toolCalls).toEqual([expect.objectContaining({ name: 'whoami', ok: true })]);
    await receiver.waitFor((received) => received.spans.some((span) => span.name === 'execute_tool whoami'));
    const tool = receiver.spans.find((span) => span.name === 'execute_tool whoami')!;
    const expected = `00-${CALLER_TRACE_ID}-${tool.spanId}-01`;
    const call = toolCallRequest();
    expect([call.headers.traceparent, call.headers.tracestate]).toEqual([expected, 'vendor=opaque']);
    expect(JSON.parse(call.body).params._meta).toMatchObject({ traceparent: expected, tracestate: 'vendor=opaque' });
  });

  it('passes the caller\'s own trace context on unchanged when telemetry is off', async () => {
    // Prepare
    const model = await servers.model(script());
    const local = await servers.local(yml(), model);

    // Act
    await askWithTrace(local.server.url);

    // Assess
    const call = toolCallRequest();
    expect(call.headers.traceparent).toBe(CALLER_TRACEPARENT);
    expect(JSON.parse(call.body).params._meta).toMatchObject({ traceparent: CALLER_TRACEPARENT, 'io.github.mcp-agent/conversationId': 'echoed' });
    expect(receiver.paths).toEqual([]);
  });
});
