/**
 * `LLM_PROVIDER=bedrock BEDROCK_ENDPOINT=<stand-in> npm start`: the whole service on Amazon
 * Bedrock's Converse API, against the Bedrock stand-in (real HTTP/2, SigV4 checked, Converse's
 * rules checked), with the demo MCP server's tools, as JSON and as Server-Sent Events.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { converseText, converseToolUse, usage } from '../support/bedrock-stand-in-events.ts';
import { STAND_IN_CREDENTIALS, standInEnvironment, startBedrockStandIn, type BedrockStandIn, type BedrockStep } from '../support/bedrock-stand-in.ts';
import { DEMO_SERVER, getJson, postJson } from '../support/configured-local-server.ts';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { eventNames, postForEvents } from '../support/sse-client.ts';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

type Block = Record<string, { toolUseId?: string; content?: Array<{ text?: string; json?: unknown }> } | string | undefined>;

/**
 * Answers like a model would, from the request itself: a question gets weather calls (two for a
 * question naming two cities), tool results get an answer quoting them.
 */
function modelOf(body: Record<string, unknown>): BedrockStep {
  const messages = body['messages'] as Array<{ role: string; content: Block[] }>;
  const last = messages.at(-1)!;
  const results = last.content.filter((block) => block['toolResult'] !== undefined);
  if (results.length > 0) {
    const said = results.map((block) => JSON.stringify((block['toolResult'] as { content: unknown[] }).content[0])).join(' / ');
    return converseText(`Here is what I found: ${said}`);
  }
  const question = last.content.map((block) => (typeof block['text'] === 'string' ? block['text'] : '')).join(' ');
  // What a guardrail and the output limit look like on the wire.
  if (question.includes('forbidden')) return converseText('Sorry, the model cannot answer that.', 'guardrail_intervened');
  if (question.includes('long story')) return converseText('Once upon a time there was a', 'max_tokens');
  const order = /ORD\d+/.exec(question)?.[0];
  if (order) return converseToolUse([{ toolUseId: `tooluse_cancel_${messages.length}`, name: 'batchCancelOrdersByOrderNo', input: { orderNos: [order] } }]);
  if (question.includes('again')) return converseText('As before.', 'end_turn', usage(10, 5, { read: 300, write: 40 }));
  const cities = ['Shanghai', 'Beijing'].filter((city) => question.includes(city));
  if (cities.length === 0) return converseText(`You said: ${question}`);
  return converseToolUse(cities.map((city, index) => ({ toolUseId: `tooluse_${city}_${messages.length}_${index}`, name: 'getWeather', input: { city } })));
}

describe('npm start with LLM_PROVIDER=bedrock', () => {
  let standIn: BedrockStandIn;
  let server: LocalServer;
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-e2e-bedrock-'));
    const agentConfig = join(folder, 'agent.yml');
    // Calls that may change something (cancelling orders) wait for a person's approval.
    writeFileSync(agentConfig, ['mcpServers:', `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}], requireApproval: destructive }`].join('\n'));
    standIn = await startBedrockStandIn(modelOf);
    server = await startLocalServer({
      AGENT_CONFIG: agentConfig,
      LOCAL_DATA_DIR: join(folder, 'data'),
      ...standInEnvironment(standIn, MODEL),
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await standIn?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('says at start which model answers, and /health names the provider and model, never credentials', async () => {
    const health = await getJson(`${server.url}/health`);

    expect(server.output()).toContain(`Model: ${MODEL} on Amazon Bedrock (${standIn.endpoint})`);
    expect(health.body.model).toEqual({ configured: true, name: MODEL, provider: 'bedrock' });
    expect(JSON.stringify(health.body)).not.toContain(STAND_IN_CREDENTIALS.secretAccessKey);
  });

  it('answers a turn with a tool round as JSON, and a second turn that carries the first one’s calls', async () => {
    const before = standIn.requests.length;

    const first = await postJson(`${server.url}/conversations`, { message: 'What is the weather in Shanghai?' });
    const second = await postJson(`${server.url}/conversations/${first.body.conversationId}/messages`, { message: 'Thanks! Anything else?' });

    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ stopReason: 'completed', rounds: 2, toolCalls: [{ name: 'getWeather', arguments: { city: 'Shanghai' }, ok: true }] });
    expect(first.body.reply).toContain('Here is what I found');
    expect(first.body.reply).toContain('Shanghai');
    expect(second.status).toBe(200);
    expect(second.body.reply).toBe('You said: Thanks! Anything else?');
    const sent = standIn.requests.slice(before);
    expect(sent.map((request) => [request.operation, request.httpVersion, request.rejected])).toEqual([
      ['converse', '2.0', undefined],
      ['converse', '2.0', undefined],
      ['converse', '2.0', undefined],
    ]);
    const roles = (sent[2]!.body['messages'] as Array<{ role: string }>).map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
  });

  it('runs parallel calls and sends their results back in one user message, in call order', async () => {
    const before = standIn.requests.length;

    const turn = await postJson(`${server.url}/conversations`, { message: 'Weather in Shanghai and Beijing?' });

    expect(turn.status).toBe(201);
    expect(turn.body.toolCalls.map((call: { arguments: { city: string } }) => call.arguments.city)).toEqual(['Shanghai', 'Beijing']);
    const second = standIn.requests[before + 1]!;
    expect(second.rejected).toBeUndefined();
    const results = (second.body['messages'] as Array<{ content: Block[] }>)[2]!.content.map((block) => (block['toolResult'] as { toolUseId: string }).toolUseId);
    expect(results).toEqual(['tooluse_Shanghai_1_0', 'tooluse_Beijing_1_1']);
  });

  it('ends a turn a guardrail intervened in with content_filtered and the guardrail’s words, and a cut reply with max_tokens', async () => {
    const filtered = await postJson(`${server.url}/conversations`, { message: 'Tell me something forbidden' });
    const cut = await postJson(`${server.url}/conversations`, { message: 'Tell me a long story' });
    const onV1 = await postJson(`${server.url}/v1/chat/completions`, { model: 'mcp-agent', messages: [{ role: 'user', content: 'Tell me something forbidden' }] });

    expect(filtered.body).toMatchObject({ stopReason: 'content_filtered', reply: 'Sorry, the model cannot answer that.', toolCalls: [] });
    expect(cut.body).toMatchObject({ stopReason: 'max_tokens', reply: 'Once upon a time there was a' });
    expect(onV1.body.choices[0]).toMatchObject({ finish_reason: 'content_filter', message: { content: 'Sorry, the model cannot answer that.' } });
  });

  it('pauses a call that needs approval, and resumes the same turn through Bedrock once it is approved', async () => {
    const before = standIn.requests.length;

    const paused = await postJson(`${server.url}/conversations/bedrock-approval/messages`, { message: 'Cancel order ORD20250514118566' });
    const pending = paused.body.pendingApprovals as Array<{ toolCallId: string; name: string }>;
    const resumed = await postJson(`${server.url}/conversations/bedrock-approval/approvals`, { decisions: [{ toolCallId: pending[0]!.toolCallId, approved: true }] });

    expect(paused.body).toMatchObject({ stopReason: 'approval_required', pendingApprovals: [{ name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118566'] } }] });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ stopReason: 'completed', turn: 1, toolCalls: [{ name: 'batchCancelOrdersByOrderNo', ok: true }] });
    expect(resumed.body.reply).toContain('ORD20250514118566');
    // The resumed request carries the call and its result as Converse wants them, and was accepted.
    const sent = standIn.requests.slice(before);
    expect(sent.map((request) => request.rejected)).toEqual([undefined, undefined]);
    expect((sent[1]!.body['messages'] as Array<{ role: string }>).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('reports the prompt cache’s reads and writes in the turn’s usage, counted in its prompt tokens', async () => {
    const turn = await postJson(`${server.url}/conversations`, { message: 'Say it again' });

    expect(turn.body.usage).toMatchObject({ promptTokens: 350, completionTokens: 5, cacheReadTokens: 300, cacheWriteTokens: 40 });
  });

  it('streams a turn through ConverseStream as Server-Sent Events, the text deltas joining to the reply', async () => {
    const before = standIn.requests.length;

    const exchange = await postForEvents(`${server.url}/conversations`, { body: { message: 'What is the weather in Beijing?' } });

    expect(exchange.status).toBe(200);
    const turnEnd = exchange.events.find((event) => event.event === 'turn-end')!.data as { reply: string; stopReason: string };
    const deltas = exchange.events.filter((event) => event.event === 'text-delta').map((event) => (event.data as { text: string }).text);
    expect(turnEnd.stopReason).toBe('completed');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(turnEnd.reply);
    expect(eventNames(exchange)).toContain('tool-result');
    expect(standIn.requests.slice(before).map((request) => [request.operation, request.rejected])).toEqual([
      ['converse-stream', undefined],
      ['converse-stream', undefined],
    ]);
  });
});

describe('npm start with LLM_PROVIDER=bedrock and something missing', () => {
  it.each([
    ['no model', { AWS_REGION: 'us-east-1' }, 'No Bedrock model is named. Set LLM_MODEL'],
    ['no region', { LLM_MODEL: MODEL }, 'No AWS region is set for Bedrock. Set AWS_REGION'],
    // No keys, and a home without ~/.aws; the instance metadata service is not asked on a laptop either.
    ['no credentials', { LLM_MODEL: MODEL, AWS_REGION: 'us-east-1', HOME: tmpdir(), AWS_CONFIG_FILE: '/nonexistent/config', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials', AWS_EC2_METADATA_DISABLED: 'true' }, 'No AWS credentials for Bedrock'],
  ])('stops at start with %s, saying what to set', async (_missing, environment, message) => {
    const folder = mkdtempSync(join(tmpdir(), 'agent-e2e-bedrock-missing-'));
    try {
      const failure = await startLocalServer({ LLM_PROVIDER: 'bedrock', LOCAL_DATA_DIR: folder, ...environment }).then(
        async (server) => {
          await server.stop();
          return undefined;
        },
        (error: unknown) => error as Error,
      );

      expect(failure?.message).toContain('exited with 1 before listening');
      expect(failure?.message).toContain(message);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('stops at start when the account may not use the model, with Bedrock’s reason, after one single-token call', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'agent-e2e-bedrock-access-'));
    const denied = await startBedrockStandIn([
      { exception: 'AccessDeniedException', status: 403, message: 'You don\'t have access to the model with the specified model ID.' },
    ]);
    try {
      const failure = await startLocalServer({ LOCAL_DATA_DIR: folder, ...standInEnvironment(denied, MODEL) }).then(
        async (server) => {
          await server.stop();
          return undefined;
        },
        (error: unknown) => error as Error,
      );

      expect(failure?.message).toContain('exited with 1 before listening');
      expect(failure?.message).toContain(`Bedrock does not let this identity use ${MODEL}`);
      expect(failure?.message).toContain('Model access');
      expect(denied.requests).toHaveLength(1);
      expect(denied.requests[0]!.body).toMatchObject({ inferenceConfig: { maxTokens: 1 } });
    } finally {
      await denied.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
