/** Starts `npm start`'s entry (functions/local.ts) as a separate process, as a user would run it. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface LocalServer {
  url: string;
  output: () => string;
  stop(): Promise<void>;
  /** SIGKILL: the process dies at once, as a Lambda that runs out of time or memory does. */
  kill(): Promise<void>;
}

export async function startLocalServer(environment: Record<string, string>): Promise<LocalServer> {
  const child = spawn(process.execPath, ['functions/local.ts'], {
    cwd: PROJECT_ROOT,
    // Only what the test names, plus PATH and HOME: no model settings leak in from the developer's shell.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const url = await new Promise<string>((resolve, reject) => {
    let timedOut = false;
    // Ended, not left running: the caller may remove the folders it was given once this rejects.
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, 30_000);
    const check = () => {
      const found = /listening on (http:\/\/localhost:\d+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(timedOut ? `local server did not start within 30 s:\n${output}` : `local server exited with ${code} before listening:\n${output}`));
    });
  });

  return {
    url,
    output: () => output,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(forced);
    },
  };
}

/** Waits until the server's output matches, e.g. the MCP status lines printed after start-up. */
export async function waitForOutput(server: LocalServer, pattern: RegExp, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!pattern.test(server.output())) {
    if (Date.now() - started > timeoutMs) throw new Error(`output never matched ${pattern}:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
