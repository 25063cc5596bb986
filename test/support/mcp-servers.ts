/** Helpers for tests that start real MCP servers: specs, a recording logger, HTTP servers. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpGatewayOptions, McpServerSpec } from '../../lib/adapters/mcp/types.ts';
import { createPaginatingServer } from '../fixtures/paginating-mcp.ts';
import { recordingLogger } from './recording-logger.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const EVERYTHING_ENTRY = `${PROJECT_ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
export const FILESYSTEM_ENTRY = `${PROJECT_ROOT}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;
export const DEMO_ENTRY = `${PROJECT_ROOT}lib/demo/server.ts`;
const PAGINATING_ENTRY = `${PROJECT_ROOT}test/fixtures/paginating-server.ts`;

export type StdioServerSpec = Extract<McpServerSpec, { type: 'stdio' }>;

/** The test fixture server (test/fixtures/paginating-server.ts) under a name, configured by env. */
export function fixtureServer(name: string, env: Record<string, string> = {}): StdioServerSpec {
  return { name, type: 'stdio', command: 'node', args: [PAGINATING_ENTRY], env };
}

export type InMemoryServerSpec = Extract<McpServerSpec, { type: 'in-memory' }>;

/**
 * The same fixture server in this process, over the SDK's InMemoryTransport: a new server at each
 * connection, as a new process would be. FIXTURE_HANG: nothing answers, as a process that never
 * serves; the `exit` tool closes the connection. For tests of the gateway's logic, not of stdio.
 */
export function inMemoryFixtureServer(name: string, env: Record<string, string> = {}): InMemoryServerSpec {
  return {
    name,
    type: 'in-memory',
    connect: async (transport) => {
      if (env['FIXTURE_HANG'] === '1') return;
      const server = createPaginatingServer(env, () => void server.close());
      await server.connect(transport);
    },
  };
}

/** server-everything's factory (it ships no types): its McpServer and what ends its timers. */
interface EverythingModule {
  createServer(): { server: { connect(transport: Transport): Promise<void>; server: { onclose?: () => void } }; cleanup(): void };
}
const EVERYTHING_SERVER_MODULE = '@modelcontextprotocol/server-everything/dist/server/index.js';

/**
 * server-everything in this process, over InMemoryTransport: the server its stdio entry serves,
 * built anew at each connection, its timers ended when the connection closes.
 */
export function inMemoryEverything(features: Partial<InMemoryServerSpec> = {}): InMemoryServerSpec {
  return {
    name: 'everything',
    type: 'in-memory',
    ...features,
    connect: async (transport) => {
      const { createServer } = (await import(EVERYTHING_SERVER_MODULE)) as EverythingModule;
      const { server, cleanup } = createServer();
      server.server.onclose = () => cleanup();
      await server.connect(transport);
    },
  };
}

/** Gateway options with generous limits: the machine is slow and noisy. */
export function gatewayOptions(
  servers: McpServerSpec[],
  settings: Partial<McpGatewayOptions['settings']> = {},
  logger: McpGatewayOptions['logger'] = recordingLogger(),
): McpGatewayOptions {
  return {
    servers,
    settings: {
      connectTimeoutSeconds: 20,
      catalogTtlSeconds: 3_600,
      reconnectMaxDelaySeconds: 60,
      maxResultBytes: 1024 * 1024,
      ...settings,
    },
    logger,
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** server-everything in an HTTP mode on a free port; resolves once the port accepts connections. */
export async function startEverythingOverHttp(mode: 'streamableHttp' | 'sse', port?: number): Promise<{ port: number; process: ChildProcess }> {
  port ??= await freePort();
  const child = spawn(process.execPath, [EVERYTHING_ENTRY, mode], {
    env: { PATH: process.env['PATH'] ?? '', PORT: String(port), GZIP_ALLOWED_DOMAINS: 'localhost' },
    // It logs every request to stdout; nobody needs to read that.
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const deadline = Date.now() + 30_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`server-everything ${mode} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`server-everything ${mode} did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, process: child };
}

/**
 * One of our HTTP fixture servers (a `.ts` that listens on PORT and writes a line once it does) as
 * a child process on a free port, or on `port` to stand in for a restarted one.
 */
export async function startFixtureOverHttp(entry: string, env: Record<string, string> = {}, port?: number): Promise<{ port: number; url: string; process: ChildProcess }> {
  port ??= await freePort();
  const child = spawn(process.execPath, [entry], { env: { PATH: process.env['PATH'] ?? '', PORT: String(port), ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`)));
  });
  return { port, url: `http://127.0.0.1:${port}/mcp`, process: child };
}

export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
