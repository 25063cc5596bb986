/**
 * `npm start` as a process with an agent.yml of the test's own (AGENT_CONFIG), its data in a
 * temporary folder, and the scripted model server as its OpenAI-compatible endpoint.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { startLocalServer, type LocalServer } from './local-server.ts';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from './scripted-openai-server.ts';

export const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));
export const MANY_TOOLS_SERVER = fileURLToPath(new URL('../fixtures/many-tools-server.ts', import.meta.url));

export interface ConfiguredLocalServer {
  server: LocalServer;
  /** The test's folder: agent.yml, and the data folder `data/`. */
  folder: string;
  /** Stops the process and starts it again on the same data (the conversation table survives). */
  restart(): Promise<LocalServer>;
  /** Stops the process and removes its folder. */
  close(): Promise<void>;
}

/** `environment`: more variables for the process (LOCAL_CALLER_HEADER, say). */
export async function startConfiguredLocalServer(agentYml: string, model: ScriptedOpenAIServer, environment: Record<string, string> = {}): Promise<ConfiguredLocalServer> {
  const folder = mkdtempSync(join(tmpdir(), 'agent-strategy-'));
  const path = join(folder, 'agent.yml');
  writeFileSync(path, agentYml);
  const start = () => startLocalServer({ AGENT_CONFIG: path, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo', LOCAL_DATA_DIR: join(folder, 'data'), ...environment });
  let server: LocalServer;
  try {
    server = await start();
  } catch (error) {
    // It did not start (and has ended): nothing else would remove its folder.
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  const handle: ConfiguredLocalServer = {
    server,
    folder,
    async restart() {
      await handle.server.stop();
      handle.server = await start();
      return handle.server;
    },
    async close() {
      await handle.server.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
  return handle;
}

/**
 * The scripted model servers and `npm start` processes a test starts, all stopped after it (the
 * last started first), whether it passed or not. Call it in a describe block.
 */
export function serversPerTest() {
  let running: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    const started = running.reverse();
    running = [];
    for (const server of started) await server.close();
  });
  const started = <Server extends { close(): Promise<void> }>(server: Server): Server => (running.push(server), server);
  return {
    model: async (script: Parameters<typeof startScriptedOpenAIServer>[0]) => started(await startScriptedOpenAIServer(script)),
    local: async (agentYml: string, model: ScriptedOpenAIServer, environment?: Record<string, string>) => started(await startConfiguredLocalServer(agentYml, model, environment)),
  };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

export async function getJson(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

/** The demo MCP server's entry in agent.yml, with extra keys for its entry (requireApproval, ...). */
export const demoServerYml = (extra = '') => `mcpServers:\n  demo: { command: node, args: [${JSON.stringify(DEMO_SERVER)}]${extra} }\n`;
