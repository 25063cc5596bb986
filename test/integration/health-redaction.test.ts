/**
 * What any authenticated caller can learn about the service's upstreams: GET /health names each MCP
 * server, its status and tools, and nothing an upstream said (a revoked server's 401 body may
 * carry tokens) nor where the model lives; tool messages the model (and so the caller) reads do not
 * carry those bodies either. The details go to the log. Real MCP server over Streamable HTTP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildAgent } from '../../lib/build-agent.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { createHttpHandler } from '../../lib/front-doors/handlers.ts';
import { createScriptedModel, textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import type { Agent } from '../../lib/agent/agent-api.ts';
import { startCallerEchoHttpServer, type CallerEchoHttpServer } from '../fixtures/caller-echo-server.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const SECRET = 'sk-live-7Hq2mZ9xR4vT1nB8';
const REFUSAL = JSON.stringify({ error: 'invalid_token', error_description: `token ${SECRET} was revoked at 2026-05-16T16:10:34Z` });
const MODEL_URL = 'https://llm.internal.example.com/v1';

describe('what health and tool messages reveal of the upstreams', () => {
  let server: CallerEchoHttpServer;
  let agent: Agent | undefined;

  beforeEach(async () => {
    server = await startCallerEchoHttpServer();
  });

  afterEach(async () => {
    await agent?.close();
    await server.close();
  });

  function build(steps: Parameters<typeof createScriptedModel>[0]) {
    // A call's time far beyond the test's own: a server that refuses the service must fail its calls
    // at once, not hold each one for its whole time waiting for a reconnection that cannot come.
    const config = parseConfig(
      [`model: { baseURL: "${MODEL_URL}", name: gpt-4o-mini }`, 'tools: { connectTimeoutSeconds: 20, reconnectMaxDelaySeconds: 3600, callTimeoutSeconds: 280 }', 'mcpServers:', `  tickets: { type: http, url: "${server.url}" }`].join('\n'),
      { source: 'test.yml', environment: { OPENAI_API_KEY: 'sk-test' } },
    );
    const logger = recordingLogger();
    const model = createScriptedModel(steps);
    agent = buildAgent(config, { model, store: createMemoryConversationStore(), logger });
    const handle = createHttpHandler({ agent, logger, maxBodyBytes: 65_536 });
    return { handle, model, logger };
  }

  const health = { method: 'GET', path: '/health', headers: {}, body: undefined };

  it('answers /health without the 401 body of a server that refuses the service, and logs it', async () => {
    server.refuseWith(REFUSAL);
    const { handle, logger } = build([]);

    const response = await handle(health);

    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(SECRET);
    expect(response.body).not.toContain('invalid_token');
    expect(JSON.parse(response.body)).toEqual({
      status: 'degraded',
      model: { configured: true, name: 'gpt-4o-mini', provider: 'openai' },
      tools: 0,
      mcpServers: [{ name: 'tickets', transport: 'http', status: 'failed', toolCount: 0, tools: [] }],
    });
    expect(JSON.stringify(logger.entries)).toContain(SECRET);
  });

  it('answers /health without the model\'s base URL', async () => {
    const { handle } = build([]);

    const body = JSON.parse((await handle(health)).body);

    expect(body).toMatchObject({ status: 'ok', model: { configured: true, name: 'gpt-4o-mini' }, mcpServers: [{ name: 'tickets', status: 'connected', toolCount: 1 }] });
    expect(JSON.stringify(body)).not.toContain('llm.internal');
  });

  it('tells the model a call failed, and the next that the server is down, without the server\'s 401 body', async () => {
    const { handle, model, logger } = build([
      toolCallsReply([{ id: 'call_1', name: 'whoami', arguments: {} }]),
      toolCallsReply([{ id: 'call_2', name: 'whoami', arguments: {} }]),
      textReply('工单系统暂时不可用。'),
    ]);
    expect((await handle(health)).body).toContain('"connected"');
    server.refuseWith(REFUSAL);

    const response = await handle({ method: 'POST', path: '/conversations', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: '查一下我的工单' }) });

    expect(response.statusCode).toBe(201);
    const toolMessages = model.requests.at(-1)!.messages.filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message.content)).toEqual([
      expect.stringMatching(/whoami.*failed/),
      expect.stringMatching(/whoami.*unavailable/),
    ]);
    expect(JSON.stringify(toolMessages)).not.toContain(SECRET);
    expect(response.body).not.toContain(SECRET);
    expect((await handle(health)).body).not.toContain(SECRET);
    expect(JSON.stringify(logger.entries)).toContain(SECRET);
  });
});
