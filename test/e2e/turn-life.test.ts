import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalServer, waitForOutput, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const SLOW_TOOL_SERVER = fileURLToPath(new URL('../fixtures/slow-tool-server.ts', import.meta.url));
const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));

async function post(url: string, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

type WireMessage = { role: string; tool_call_id?: string; content?: string };
const wireMessages = (model: ScriptedOpenAIServer, index: number) => (model.requests[index]!.body as { messages: WireMessage[] }).messages;

/** A turn's life through `npm start` as a real process, killed and restarted as a deployment would be. */
describe('a turn’s life across restarts of the local server', () => {
  let model: ScriptedOpenAIServer | undefined;
  let server: LocalServer | undefined;
  let folder: string;

  const start = (config: string, extra: Record<string, string> = {}) => {
    const path = join(folder, 'agent.yml');
    writeFileSync(path, config);
    return startLocalServer({ AGENT_CONFIG: path, OPENAI_BASE_URL: model!.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo', LOCAL_DATA_DIR: join(folder, 'data'), ...extra });
  };

  afterEach(async () => {
    await server?.stop();
    await model?.close();
    server = undefined;
    model = undefined;
    rmSync(folder, { recursive: true, force: true });
  });

  it('approves a paused call after the service restarted, running it with the arguments it was approved with', async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-approvals-'));
    model = await startScriptedOpenAIServer([
      toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]),
      textReply('订单 ORD20250514118567 已取消。'),
    ]);
    const config = `mcpServers:\n  demo:\n    command: node\n    args: [${JSON.stringify(DEMO_SERVER)}]\n    requireApproval: destructive\n`;
    server = await start(config);

    const paused = await post(`${server.url}/conversations/orders-approval/messages`, { message: '取消订单 ORD20250514118567' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'call_cancel', name: 'batchCancelOrdersByOrderNo', server: 'demo', arguments: { orderNos: ['ORD20250514118567'] } }] });

    await server.stop();
    server = await start(config);

    const resumed = await post(`${server.url}/conversations/orders-approval/approvals`, { decisions: [{ toolCallId: 'call_cancel', approved: true }], requestId: 'approve-1' });
    expect(resumed).toMatchObject({ status: 200, body: { turn: 1, stopReason: 'completed', reply: '订单 ORD20250514118567 已取消。', rounds: 2 } });
    const answer = wireMessages(model, 1).find((message) => message.tool_call_id === 'call_cancel');
    expect(JSON.parse(answer!.content!)).toEqual({ success: ['ORD20250514118567'], fail: [] });
  });

  it('keeps a running turn’s short lease alive while its process lives, and frees the conversation within about that lease once the process is killed', async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-lease-'));
    const toolLog = join(folder, 'tool.log');
    model = await startScriptedOpenAIServer([
      toolCallsReply([{ id: 'call_slow', name: 'slowCancel', arguments: { orderNo: 'ORD43' } }]),
      textReply('ORD43 的取消结果未知。'),
    ]);
    // A long deadline (the old lease: 120 s + 10 s), a lease of 4 s renewed while the turn runs.
    const LEASE_SECONDS = 4;
    const config = `turn: { timeoutSeconds: 120, leaseSeconds: ${LEASE_SECONDS} }\nmcpServers:\n  slow:\n    command: node\n    args: [${JSON.stringify(SLOW_TOOL_SERVER)}]\n    env: { SLOW_TOOL_LOG: ${JSON.stringify(toolLog)}, SLOW_TOOL_MS: "60000" }\n`;
    server = await start(config);
    await waitForOutput(server, /MCP server "slow".*connected/);

    void post(`${server.url}/conversations/orders-leased/messages`, { message: '取消订单 ORD43', requestId: 'leased-request' }).catch(() => undefined);
    const started = Date.now();
    while (!(existsSync(toolLog) && readFileSync(toolLog, 'utf8').includes('started ORD43'))) {
      if (Date.now() - started > 20_000) throw new Error(`the slow tool never started:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // While the process lives, the turn holds the conversation well past one lease, and each 409
    // says to come back within the lease, not at the deadline.
    const toolStarted = Date.now();
    const waits: number[] = [];
    while (Date.now() - toolStarted < 2.5 * LEASE_SECONDS * 1000) {
      const busy = await post(`${server.url}/conversations/orders-leased/messages`, { message: '好了吗?' });
      expect(busy).toMatchObject({ status: 409, body: { error: { code: 'conversation_busy' } } });
      waits.push(Number(busy.headers.get('retry-after')));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(Math.max(...waits)).toBeLessThanOrEqual(LEASE_SECONDS);
    expect(Math.min(...waits)).toBeGreaterThan(0);

    await server.kill();
    const killed = Date.now();
    server = await start(config);
    let next = await post(`${server.url}/conversations/orders-leased/messages`, { message: '好了吗?' });
    for (let tries = 0; next.status === 409 && tries < 3; tries += 1) {
      expect(next.body.error.code).toBe('conversation_busy');
      const wait = Number(next.headers.get('retry-after'));
      expect(wait).toBeLessThanOrEqual(LEASE_SECONDS);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 200));
      next = await post(`${server.url}/conversations/orders-leased/messages`, { message: '好了吗?' });
    }
    expect(next).toMatchObject({ status: 200, body: { turn: 2, stopReason: 'completed' } });
    // Free again within a lease of the kill (plus the restart), far from the deadline's 130 s.
    expect(Date.now() - killed).toBeLessThan(60_000);
    const view = (await (await fetch(`${server.url}/conversations/orders-leased`)).json()) as any;
    expect(view.turns.map((turn: any) => [turn.turn, turn.stopReason])).toEqual([[1, 'interrupted'], [2, 'completed']]);
  });

  it('completes a turn killed during a tool call as interrupted, before answering the next message', async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-interrupted-'));
    const toolLog = join(folder, 'tool.log');
    model = await startScriptedOpenAIServer([
      toolCallsReply([{ id: 'call_slow', name: 'slowCancel', arguments: { orderNo: 'ORD42' } }]),
      textReply('ORD42 的取消结果未知，我先帮你查一下。'),
    ]);
    // Short turns, no lease margin: the conversation is free again 4 s after the killed turn began.
    const config = `turn: { timeoutSeconds: 4, reserveSeconds: 1, leaseMarginSeconds: 0 }\nmcpServers:\n  slow:\n    command: node\n    args: [${JSON.stringify(SLOW_TOOL_SERVER)}]\n    env: { SLOW_TOOL_LOG: ${JSON.stringify(toolLog)}, SLOW_TOOL_MS: "60000" }\n`;
    server = await start(config);
    await waitForOutput(server, /MCP server "slow".*connected/);

    void post(`${server.url}/conversations/orders-killed/messages`, { message: '取消订单 ORD42', requestId: 'killed-request' }).catch(() => undefined);
    const started = Date.now();
    while (!(existsSync(toolLog) && readFileSync(toolLog, 'utf8').includes('started ORD42'))) {
      if (Date.now() - started > 20_000) throw new Error(`the slow tool never started:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await server.kill();

    // The killed turn's claim keeps the 4 s it was taken with; the next turn may take its time on a loaded machine.
    server = await start(config.replace('timeoutSeconds: 4,', 'timeoutSeconds: 60,'));
    let next = await post(`${server.url}/conversations/orders-killed/messages`, { message: '刚才的订单取消了吗?' });
    if (next.status === 409) {
      expect(next.body.error.code).toBe('conversation_busy');
      const wait = Number(next.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 200));
      next = await post(`${server.url}/conversations/orders-killed/messages`, { message: '刚才的订单取消了吗?' });
    }
    expect(next).toMatchObject({ status: 200, body: { turn: 2, stopReason: 'completed' } });

    // The model saw the killed turn whole: the call, answered "outcome unknown", then the new question.
    const sent = wireMessages(model, 1);
    const unknown = sent.find((message) => message.tool_call_id === 'call_slow');
    expect(unknown?.content).toMatch(/the service stopped while this call was running; its outcome is unknown: check before repeating it/);
    expect(sent.at(-1)).toEqual({ role: 'user', content: '刚才的订单取消了吗?' });

    const view = (await (await fetch(`${server.url}/conversations/orders-killed`)).json()) as any;
    expect(view.turns.map((turn: any) => [turn.turn, turn.stopReason])).toEqual([[1, 'interrupted'], [2, 'completed']]);
    const retry = await post(`${server.url}/conversations/orders-killed/messages`, { message: '取消订单 ORD42', requestId: 'killed-request' });
    expect(retry).toMatchObject({ status: 200, body: { turn: 1, stopReason: 'interrupted' } });
  });
});
