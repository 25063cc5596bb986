/**
 * Whom a tool call is made for reaches the MCP server as `_meta` on tools/call, so a server can
 * authorize per user; the caller's credentials never do (the server is called with the service's
 * own). A real server that echoes what each call carried, over Streamable HTTP and stdio.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CALLER_META_KEYS } from '../../lib/adapters/mcp/call-tool.ts';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { McpServerSpec } from '../../lib/adapters/mcp/types.ts';
import type { ToolCallOptions, ToolGateway } from '../../lib/core/ports/tools.ts';
import { withTraceContext } from '../../lib/core/trace-context.ts';
import { CALLER_ECHO_ENTRY, startCallerEchoHttpServer, type CallerEchoHttpServer } from '../fixtures/caller-echo-server.ts';
import { gatewayOptions } from '../support/mcp-servers.ts';

const ADA = 'eu-west-1:7c3e9a1b-2f4d-4e6a-8b0c-1d2e3f4a5b6c';
const options = (caller?: ToolCallOptions['caller']): ToolCallOptions => ({ signal: new AbortController().signal, timeoutMs: 20_000, ...(caller ? { caller } : {}) });

describe('the caller of a tool call, as the MCP server sees it', () => {
  let server: CallerEchoHttpServer | undefined;
  let gateway: ToolGateway | undefined;

  afterEach(async () => {
    await gateway?.close();
    await server?.close();
    gateway = undefined;
    server = undefined;
  });

  async function whoami(spec: McpServerSpec, caller?: ToolCallOptions['caller']) {
    gateway = createMcpGateway(gatewayOptions([spec]));
    const output = await gateway.callTool('whoami', {}, options(caller));
    expect(output.ok).toBe(true);
    return JSON.parse(output.text) as { meta: Record<string, unknown> | null; authorization: string | null; environment: string[] };
  }

  it('names the owner and the conversation in _meta over Streamable HTTP, with the service\'s own credentials only', async () => {
    server = await startCallerEchoHttpServer();

    const seen = await whoami({ name: 'tickets', type: 'http', url: server.url, headers: { Authorization: 'Bearer service-token' } }, { conversationId: 'orders-42', owner: ADA });

    expect(seen.meta).toEqual({ 'io.github.mcp-agent/owner': ADA, 'io.github.mcp-agent/conversationId': 'orders-42' });
    expect(seen.authorization).toBe('Bearer service-token');
    const call = server.requests.find((request) => request.body.includes('"tools/call"'))!;
    expect(JSON.parse(call.body).params._meta).toEqual({ 'io.github.mcp-agent/owner': ADA, 'io.github.mcp-agent/conversationId': 'orders-42' });
  });

  it('sends the conversation alone when the turn has no owner (authMode none)', async () => {
    server = await startCallerEchoHttpServer();

    const seen = await whoami({ name: 'tickets', type: 'http', url: server.url, headers: {} }, { conversationId: 'orders-42' });

    expect(seen.meta).toEqual({ 'io.github.mcp-agent/conversationId': 'orders-42' });
    expect(seen.authorization).toBeNull();
  });

  it('sends no _meta when nobody says whom the call is for', async () => {
    server = await startCallerEchoHttpServer();
    expect((await whoami({ name: 'tickets', type: 'http', url: server.url, headers: {} })).meta).toBeNull();
  });

  it('names the owner and the conversation in _meta over stdio, and passes the server none of the service\'s credential variables', async () => {
    const previous = process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = 'the-function-secret';
    try {
      const seen = await whoami({ name: 'local', type: 'stdio', command: 'node', args: [CALLER_ECHO_ENTRY], env: {} }, { conversationId: 'orders-42', owner: ADA });
      expect(seen.meta).toEqual({ 'io.github.mcp-agent/owner': ADA, 'io.github.mcp-agent/conversationId': 'orders-42' });
      expect(seen.environment).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = previous;
    }
  });

  it('passes the trace context of the work under way in _meta over stdio, and in _meta and headers over Streamable HTTP', async () => {
    const trace = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'vendor=opaque' };
    const overStdio = await withTraceContext(trace, () => whoami({ name: 'local', type: 'stdio', command: 'node', args: [CALLER_ECHO_ENTRY], env: {} }, { conversationId: 'orders-42' }));
    expect(overStdio.meta).toEqual({ 'io.github.mcp-agent/conversationId': 'orders-42', ...trace });
    await gateway?.close();
    server = await startCallerEchoHttpServer();
    const overHttp = await withTraceContext(trace, () => whoami({ name: 'tickets', type: 'http', url: server!.url, headers: {} }));
    expect(overHttp.meta).toEqual(trace);
    const call = server.requests.find((request) => request.body.includes('"tools/call"'))!;
    expect([call.headers.traceparent, call.headers.tracestate]).toEqual([trace.traceparent, trace.tracestate]);
  });

  it('documents its key names', () => {
    expect(CALLER_META_KEYS).toEqual({ owner: 'io.github.mcp-agent/owner', conversationId: 'io.github.mcp-agent/conversationId' });
  });
});
