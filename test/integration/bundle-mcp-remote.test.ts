/**
 * The MCP client's HTTP side as a Lambda function carries it (#mcp-remote, infra/bundling.ts): the
 * gateway compiled as the functions compile it, once for an agent.yml that names an MCP server
 * with a url and once for one whose servers are all local. A fresh Node process, with no
 * node_modules above the folder, loads each and connects to a 2026-07-28 server over HTTP
 * (test/fixtures/stateless-server.ts, which checks the Mcp-Param-* headers itself): the first
 * lists and calls its tools; the second, without that code, says how to get it.
 */
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FUNCTION_BUNDLE, PROJECT_ROOT, functionBuildOptions } from '../../infra/bundling.ts';
import { startFixtureOverHttp, stopProcess } from '../support/mcp-servers.ts';

const run = promisify(execFile);
const folders: string[] = [];
let server: { url: string; process: ChildProcess } | undefined;

async function bundleGateway(mcpRemote: boolean): Promise<string> {
  const folder = mkdtempSync(path.join(tmpdir(), 'bundle-mcp-remote-'));
  folders.push(folder);
  await build(functionBuildOptions(path.join(PROJECT_ROOT, 'lib/adapters/mcp/gateway.ts'), path.join(folder, 'index.mjs'), { ...DEFAULT_FUNCTION_BUNDLE, mcpRemote }));
  return folder;
}

/** Lists the server's tools through the bundled gateway, calls `route`, and reports the status. */
async function useServer(folder: string, url: string): Promise<{ tools: string[]; output?: unknown; status: { status: string; error?: string; protocolVersion?: string } }> {
  const script = path.join(folder, 'run.mjs');
  writeFileSync(script, `
    import { createMcpGateway } from './index.mjs';
    const logger = { debug() {}, info() {}, warn() {}, error() {}, child() { return logger; } };
    const settings = { connectTimeoutSeconds: 30, catalogTtlSeconds: 60, reconnectMaxDelaySeconds: 60, maxResultBytes: 1048576 };
    const gateway = createMcpGateway({ servers: [{ name: 'modern', type: 'http', url: ${JSON.stringify(url)}, headers: {} }], settings, logger });
    const tools = (await gateway.listTools()).map((tool) => tool.name);
    const output = tools.includes('route') ? await gateway.callTool('route', { region: 'Zürich', priority: 3, note: 'n' }, { signal: AbortSignal.timeout(30000), timeoutMs: 30000 }) : undefined;
    const [status] = await gateway.status();
    await gateway.close();
    console.log(JSON.stringify({ tools, output, status }));
    process.exit(0);`);
  const { stdout } = await run(process.execPath, [script], { cwd: folder, timeout: 90_000, env: { PATH: process.env['PATH'] ?? '' } });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { tools: string[]; output?: unknown; status: { status: string; error?: string } };
}

beforeAll(async () => {
  server = await startFixtureOverHttp(path.join(PROJECT_ROOT, 'test/fixtures/stateless-server.ts'), { LEGACY: 'reject', HEADER_TOOLS: '1' });
}, 60_000);

afterAll(async () => {
  await stopProcess(server?.process);
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('the stream function of an agent.yml whose servers are all local and have no oauth block', () => {
  it('carries neither the SDK\'s Streamable HTTP transport nor its OAuth client, which only remote servers use', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'bundle-local-mcp-'));
    folders.push(folder);

    const { metafile } = await build({ ...functionBuildOptions(path.join(PROJECT_ROOT, 'functions/stream.ts'), path.join(folder, 'index.mjs')), metafile: true });

    const sdk = Object.keys(metafile.inputs).filter((file) => file.includes('@modelcontextprotocol/sdk/'));
    expect(sdk.some((file) => file.endsWith('/client/stdio.js'))).toBe(true);
    expect(sdk.filter((file) => /\/(client\/streamableHttp|client\/auth|shared\/auth)\.js$/.test(file))).toEqual([]);
  }, 180_000);
});

describe('the MCP client over HTTP in a function bundle', () => {
  it('connects, lists and calls with the Mcp-Param-* headers when agent.yml names a server with a url', async () => {
    const folder = await bundleGateway(true);

    const used = await useServer(folder, server!.url);

    expect(used.tools).toEqual(['add', 'confirm', 'where', 'route']);
    expect(used.output).toEqual({ ok: true, text: 'Zürich at 3' });
    expect(used.status).toMatchObject({ status: 'connected', protocolVersion: '2026-07-28' });
  }, 180_000);

  it('leaves it out of the bundles of an agent.yml whose servers are all local, and says so if one is reached anyway', async () => {
    const [withRemote, without] = await Promise.all([bundleGateway(true), bundleGateway(false)]);
    const size = (folder: string) => readFileSync(path.join(folder, 'index.mjs')).length;

    const used = await useServer(without, server!.url);

    expect(size(withRemote) - size(without)).toBeGreaterThan(20_000);
    expect(readFileSync(path.join(without, 'index.mjs'), 'utf8')).not.toContain('server/discover');
    expect(used.tools).toEqual([]);
    expect(used.status).toMatchObject({ status: 'failed', error: expect.stringContaining('bundled without MCP over HTTP') });
  }, 180_000);
});
