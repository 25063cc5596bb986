/**
 * The local server (npm start) as a separate process, on what keeps one caller out of another's
 * conversations when anyone can call it (no auth): derived conversation ids keyed by a secret
 * kept under the data folder (so a retry after a restart still finds its turn), page tokens over
 * real HTTP, and a /health that does not say where the model lives.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

async function post(url: string, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

async function get(url: string) {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as any };
}

describe('the local server, between callers', () => {
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let dataDir: string;
  const start = () => startLocalServer({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo', LOCAL_DATA_DIR: dataDir });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-e2e-tenants-'));
    model = await startScriptedOpenAIServer([textReply('第一轮'), textReply('第二轮'), textReply('第三轮')]);
    server = await start();
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let conversationId: string;

  it('keeps its HMAC key under the data folder, readable by its owner only', async () => {
    const created = await post(`${server.url}/conversations`, { message: '你好', requestId: 'checkout-1001' });
    expect(created.status).toBe(201);
    conversationId = created.body.conversationId;
    expect(statSync(join(dataDir, 'hmac-key')).mode & 0o777).toBe(0o600);
  });

  it('derives the same conversation id for a retry after a restart, which gets the stored turn', async () => {
    await server.stop();
    server = await start();
    const requestsBefore = model.requests.length;

    const retried = await post(`${server.url}/conversations`, { message: '你好', requestId: 'checkout-1001' });

    expect(retried.body).toMatchObject({ conversationId, turn: 1, reply: '第一轮' });
    expect(model.requests).toHaveLength(requestsBefore);
  });

  it('reads the conversation page by page over HTTP, following nextToken', async () => {
    await post(`${server.url}/conversations/${conversationId}/messages`, { message: '再来' });
    await post(`${server.url}/conversations/${conversationId}/messages`, { message: '最后' });

    const first = await get(`${server.url}/conversations/${conversationId}?limit=2`);
    const second = await get(`${server.url}/conversations/${conversationId}?limit=2&nextToken=${encodeURIComponent(first.body.nextToken)}`);

    expect(first.body.turns.map((turn: { turn: number }) => turn.turn)).toEqual([1, 2]);
    expect(second.body.turns.map((turn: { turn: number }) => turn.turn)).toEqual([3]);
    expect(second.body).not.toHaveProperty('nextToken');
    expect(await get(`${server.url}/conversations/${conversationId}?limit=0`)).toMatchObject({ status: 400, body: { error: { code: 'invalid_limit' } } });
  });

  it('answers /health without the model\'s address', async () => {
    const health = await get(`${server.url}/health`);
    expect(health.body).toMatchObject({ status: 'ok', model: { configured: true, name: 'gpt-4-turbo' } });
    expect(JSON.stringify(health.body)).not.toContain(new URL(model.baseURL).host);
  });
});
