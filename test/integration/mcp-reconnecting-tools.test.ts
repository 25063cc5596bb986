/**
 * A stdio MCP server that crashed just before a turn, or that takes seconds to come back, keeps its
 * tools in the catalog the model is offered, and a call to one of them waits for the reconnection
 * within the call's time: the answer is the tool's, or says its server is unavailable, never "there
 * is no tool named …", which would tell the model the tool does not exist. Through buildAgent with
 * the fixture server as a real process (killed with SIGKILL) and the scripted model over HTTP.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import type { Agent } from '../../lib/agent/agent-api.ts';
import { buildAgent } from '../../lib/build-agent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { PROJECT_ROOT } from '../support/mcp-servers.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer, type ScriptStep } from '../support/scripted-openai-server.ts';

const FIXTURE = `${PROJECT_ROOT}test/fixtures/paginating-server.ts`;
type RecordingLogger = ReturnType<typeof recordingLogger>;

let model: ScriptedOpenAIServer | undefined;
let agent: Agent | undefined;
let folder: string | undefined;

afterEach(async () => {
  await agent?.close();
  await model?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
  agent = model = folder = undefined;
});

type WireRequest = { messages: Array<{ role: string; tool_call_id?: string; content?: unknown }>; tools?: Array<{ function: { name: string } }> };
const request = (index: number) => model!.requests.filter((entry) => entry.path.endsWith('/chat/completions'))[index]!.body as WireRequest;
const offered = (index: number) => (request(index).tools ?? []).map((tool) => tool.function.name);
const toolAnswer = (index: number, id: string) => String(request(index).messages.find((message) => message.tool_call_id === id)?.content);

async function start(script: ScriptStep[], callTimeoutSeconds: number): Promise<{ agent: Agent; logger: RecordingLogger; slowStartFile: string }> {
  folder = mkdtempSync(join(tmpdir(), 'mcp-reconnecting-'));
  const slowStartFile = join(folder, 'slow-start-ms');
  model = await startScriptedOpenAIServer(script);
  const yaml = [
    `model: { name: gpt-4-turbo, baseURL: "${model.baseURL}", apiKey: sk-test }`,
    `tools: { callTimeoutSeconds: ${callTimeoutSeconds}, connectTimeoutSeconds: 30, reconnectMaxDelaySeconds: 1 }`,
    'mcpServers:',
    `  fixture: { command: node, args: [${JSON.stringify(FIXTURE)}], env: { FIXTURE_TOOLS: '["lookup"]', FIXTURE_SLOW_START_FILE: ${JSON.stringify(slowStartFile)} } }`,
  ].join('\n');
  const logger = recordingLogger();
  agent = buildAgent(parseConfig(yaml, { source: '/tmp/agent.yml', environment: {} }), { store: createMemoryConversationStore(), logger });
  return { agent, logger, slowStartFile };
}

/** Kills the fixture process that answered a call, and waits until the gateway has seen it go. */
async function crash(pid: number, logger: RecordingLogger): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await vi.waitFor(() => expect(logger.entries).toContainEqual(expect.objectContaining({ message: 'mcp server connection failed' })), { timeout: 20_000, interval: 20 });
}

describe('a stdio MCP server that crashed just before a turn', () => {
  it('keeps its tools offered, and the call waits for the new process (3 s to start) and gets its answer', async () => {
    const { agent, logger, slowStartFile } = await start([
      toolCallsReply([{ id: 'call_first', name: 'lookup', arguments: {} }]),
      textReply('First.'),
      toolCallsReply([{ id: 'call_second', name: 'lookup', arguments: {} }]),
      textReply('Second.'),
    ], 60);
    await agent.ask({ conversationId: 'crash-1', message: 'Look it up' });
    const { pid } = JSON.parse(toolAnswer(1, 'call_first')) as { pid: number };

    writeFileSync(slowStartFile, '3500');
    await crash(pid, logger);
    const result = await agent.ask({ conversationId: 'crash-1', message: 'Again' });

    expect(offered(2)).toContain('lookup');
    expect(result.toolCalls).toMatchObject([{ name: 'lookup', ok: true }]);
    const answer = JSON.parse(toolAnswer(3, 'call_second')) as { pid: number };
    expect(answer.pid).not.toBe(pid);
  }, 120_000);

  it('answers a call whose server does not come back within the call’s time that the server is unavailable, never that the tool does not exist', async () => {
    const { agent, logger, slowStartFile } = await start([
      toolCallsReply([{ id: 'call_first', name: 'lookup', arguments: {} }]),
      textReply('First.'),
      toolCallsReply([{ id: 'call_second', name: 'lookup', arguments: {} }]),
      textReply('Second.'),
    ], 6);
    await agent.ask({ conversationId: 'crash-2', message: 'Look it up' });
    const { pid } = JSON.parse(toolAnswer(1, 'call_first')) as { pid: number };

    writeFileSync(slowStartFile, '120000');
    await crash(pid, logger);
    const result = await agent.ask({ conversationId: 'crash-2', message: 'Again' });

    expect(offered(2)).toContain('lookup');
    expect(result.toolCalls).toMatchObject([{ name: 'lookup', ok: false }]);
    const answer = toolAnswer(3, 'call_second');
    expect(answer).toMatch(/MCP server "fixture" is unavailable/);
    expect(answer).not.toMatch(/no tool named|Unknown tool|did not answer/i);
  }, 120_000);
});
