/**
 * `npm start` with `model.auth: sigv4` and OPENAI_BASE_URL at a server that speaks Chat
 * Completions and, like Bedrock's OpenAI-compatible endpoints, answers only requests signed with
 * SigV4 for `bedrock`: the whole service signs with the developer's AWS credentials (here the
 * environment), sends no key, and answers a turn with a tool round, as JSON and as events.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SERVER, postJson } from '../support/configured-local-server.ts';
import { startLocalServer, waitForOutput, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ChatRequestBody, type ScriptedOpenAIServer, type ScriptStep } from '../support/scripted-openai-server.ts';
import { eventNames, postForEvents } from '../support/sse-client.ts';

const REGION = 'us-west-2';
const CREDENTIALS = { accessKeyId: 'AKIDSIGV4E2E00000000', secretAccessKey: 'sigv4-e2e-secret-0123456789' };
const MODEL = 'openai.gpt-oss-120b-1:0';

/** A question gets a weather call; the call's result gets an answer quoting it. */
function modelOf(body: ChatRequestBody): ScriptStep {
  const last = body.messages.at(-1)!;
  if (last['role'] === 'tool') return textReply(`Here is what I found: ${String(last['content'])}`);
  return toolCallsReply([{ id: `call_${body.messages.length}`, name: 'getWeather', arguments: { city: 'Shanghai' } }]);
}

describe('npm start with model.auth: sigv4', () => {
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-e2e-sigv4-'));
    const agentConfig = join(folder, 'agent.yml');
    writeFileSync(agentConfig, [
      `model: { auth: sigv4, name: ${JSON.stringify(MODEL)} }`,
      'mcpServers:',
      `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}] }`,
    ].join('\n'));
    model = await startScriptedOpenAIServer(modelOf, { signedFor: { credentials: CREDENTIALS, service: 'bedrock', region: REGION } });
    server = await startLocalServer({
      AGENT_CONFIG: agentConfig,
      LOCAL_DATA_DIR: join(folder, 'data'),
      OPENAI_BASE_URL: model.baseURL,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('says at start that it signs with SigV4, for which service and region', async () => {
    await waitForOutput(server, /^Model: /m);

    expect(server.output()).toContain(`Model: ${MODEL} at ${model.baseURL} (signed with SigV4 for bedrock in ${REGION})`);
  });

  it('answers a turn with a tool round as JSON, every request signed and none carrying a key', async () => {
    const before = model.requests.length;

    const turn = await postJson(`${server.url}/conversations`, { message: 'What is the weather in Shanghai?' });

    expect(turn.status).toBe(201);
    expect(turn.body).toMatchObject({ stopReason: 'completed', rounds: 2, toolCalls: [{ name: 'getWeather', arguments: { city: 'Shanghai' }, ok: true }] });
    expect(turn.body.reply).toContain('Here is what I found');
    const sent = model.requests.slice(before);
    expect(sent.map((request) => [request.rejected, request.headers['authorization']?.startsWith('AWS4-HMAC-SHA256 ')])).toEqual([
      [undefined, true],
      [undefined, true],
    ]);
  });

  it('answers a streamed turn, its model calls streamed and signed', async () => {
    const before = model.requests.length;

    const exchange = await postForEvents(`${server.url}/conversations`, { body: { message: 'What is the weather in Shanghai?' } });

    expect(exchange.status).toBe(200);
    const turnEnd = exchange.events.find((event) => event.event === 'turn-end')!.data as { reply: string; stopReason: string };
    const deltas = exchange.events.filter((event) => event.event === 'text-delta').map((event) => (event.data as { text: string }).text);
    expect(turnEnd.stopReason).toBe('completed');
    expect(deltas.join('')).toBe(turnEnd.reply);
    expect(eventNames(exchange)).toContain('tool-result');
    const sent = model.requests.slice(before);
    expect(sent.map((request) => [request.rejected, (request.body as { stream?: unknown }).stream])).toEqual([
      [undefined, true],
      [undefined, true],
    ]);
  });
});

describe('npm start with model.auth: sigv4 and something missing', () => {
  it('stops at start saying what to set, rather than falling back to the demo model', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'agent-e2e-sigv4-missing-'));
    const agentConfig = join(folder, 'agent.yml');
    writeFileSync(agentConfig, 'model: { auth: sigv4 }\n');
    try {
      const started = startLocalServer({ AGENT_CONFIG: agentConfig, LOCAL_DATA_DIR: join(folder, 'data'), AWS_REGION: REGION });

      await expect(started).rejects.toThrow(/exited with 1 before listening:\s*model.auth is sigv4 but the endpoint is OpenAI's.*OPENAI_BASE_URL/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
