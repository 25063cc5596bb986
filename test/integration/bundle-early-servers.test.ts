/**
 * Stdio MCP servers started while a function loads (functions/early-mcp-servers.ts,
 * lib/adapters/mcp/early-start.ts): the stream function bundled as the stack bundles it, with an
 * agent.yml whose one server marks each of its starts (test/fixtures/start-marking-server.ts).
 * Loading the function alone starts the server; the first turn's call is then run by that very
 * process, and no second one is ever started.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledConfig } from '../../infra/bundled-config.ts';
import { BUNDLED_AGENT_CONFIG, DEFAULT_FUNCTION_BUNDLE, PROJECT_ROOT, functionBuildOptions } from '../../infra/bundling.ts';
import { ENV } from '../../lib/config/environment.ts';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { invokeStreamingBundle, localFunctionEnvironment } from '../support/invoke-bundle.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const fixture = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/apigateway/rest-proxy-iam.json'), 'utf8'));
const SERVER = path.join(PROJECT_ROOT, 'test/fixtures/start-marking-server.ts');

let folder: string;
/** The source files in the stream and the worker bundles. */
let bundled: { stream: string[]; worker: string[] };
let table: LocalTable;
let model: ScriptedOpenAIServer;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'bundle-early-servers-'));
  const [stream, worker] = await Promise.all([
    build({ ...functionBuildOptions(path.join(PROJECT_ROOT, 'functions/stream.ts'), path.join(folder, 'index.mjs'), DEFAULT_FUNCTION_BUNDLE), metafile: true }),
    build({ ...functionBuildOptions(path.join(PROJECT_ROOT, 'functions/worker.ts'), path.join(folder, 'worker', 'index.mjs'), DEFAULT_FUNCTION_BUNDLE), metafile: true }),
  ]);
  bundled = { stream: Object.keys(stream.metafile.inputs), worker: Object.keys(worker.metafile.inputs) };
  [table, model] = await Promise.all([
    startLocalTable(),
    startScriptedOpenAIServer([toolCallsReply([{ id: 'which', name: 'pid', arguments: {} }]), textReply('Asked the server.')]),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([table?.close(), model?.close()]);
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** agent.yml with the marking server, whose starts go to a file of their own. */
function configureServer(name: string): string {
  const startsFile = path.join(folder, `${name}-starts.txt`);
  const agentJson = path.join(folder, `${name}.json`);
  writeFileSync(agentJson, bundledConfig(JSON.stringify({ mcpServers: { marking: { command: 'node', args: [SERVER], env: { STARTS_FILE: startsFile } } } }), BUNDLED_AGENT_CONFIG));
  return agentJson;
}

const starts = (name: string) => readFileSync(path.join(folder, `${name}-starts.txt`), 'utf8').trim().split('\n');

describe('a function whose agent.yml has stdio MCP servers', () => {
  it('starts them while it loads, and its first turn calls the process started then', async () => {
    const agentJson = configureServer('turn');
    const event = {
      ...fixture,
      path: '/conversations/early-servers/messages',
      pathParameters: { conversationId: 'early-servers' },
      headers: { ...fixture.headers, Accept: 'application/json' },
      multiValueHeaders: { ...fixture.multiValueHeaders, Accept: ['application/json'] },
      body: JSON.stringify({ message: 'Which process are you?' }),
    };

    const [answer] = await invokeStreamingBundle({ file: path.join(folder, 'index.mjs'), folder }, [event], {
      ...localFunctionEnvironment({ agentConfig: agentJson, table, modelBaseURL: model.baseURL }),
    }, { loadedMark: path.join(folder, 'turn-starts.txt') });

    expect(JSON.parse(answer!.body)).toMatchObject({ reply: 'Asked the server.', stopReason: 'completed' });
    const started = starts('turn');
    expect(started).toHaveLength(1);
    // The tool's result, in the model's second request, is the process id of the one start.
    const toolMessage = (model.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain(started[0]);
  }, 120_000);

  it('starts them from agent.yml before the rest of the function loads: a function whose settings fail to load has started its server', async () => {
    const agentJson = configureServer('alone');
    const script = `
      import { readFileSync } from 'node:fs';
      const loaded = await import(${JSON.stringify(path.join(folder, 'index.mjs'))}).then(() => 'loaded', (error) => error.message);
      const read = () => { try { return readFileSync(${JSON.stringify(path.join(folder, 'alone-starts.txt'))}, 'utf8'); } catch { return ''; } };
      for (const giveUp = Date.now() + 60000; !read(); await new Promise((resolve) => setTimeout(resolve, 20))) if (Date.now() > giveUp) throw new Error('no server started');
      process.stdout.write(loaded);
      process.exit(0);`;

    // An AUTH_MODE the function refuses: functions/runtime.ts stops the load, after the early start ran.
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', script], { cwd: folder, timeout: 90_000, env: { PATH: process.env.PATH ?? '', [ENV.agentConfig]: agentJson, [ENV.authMode]: 'bogus' } });

    expect(stdout).toMatch(/AUTH_MODE must be/);
    expect(starts('alone')).toHaveLength(1);
    // The functions that run turns carry it, and hand its processes over through their spawn.
    for (const inputs of [bundled.stream, bundled.worker]) {
      expect(inputs).toContain('functions/early-mcp-servers.ts');
      expect(inputs).toContain('functions/substitutes/linux-spawn.ts');
      expect(inputs).not.toContain('lib/adapters/mcp/no-early-start-handover.ts');
    }
  }, 120_000);
});
