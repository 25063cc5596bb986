/**
 * Processes started early (lib/adapters/mcp/early-start.ts) are handed over only to a start of the
 * very same process, only while they run, with the `spawn` event the starter listens for; what is
 * not taken is ended. The spawn options are those the MCP SDK's stdio transport passes
 * (client/stdio.js `start`); test/integration/bundle-early-servers.test.ts runs the SDK itself.
 */
import { once } from 'node:events';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { getDefaultEnvironment, type StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { endUnclaimed, startEarly, takeEarlyStarted } from '../../lib/adapters/mcp/early-start.ts';
import { inheritedEnvironment, stdioServerParameters } from '../../lib/adapters/mcp/stdio-parameters.ts';

/** Echoes each line of stdin back on stdout. */
const ECHO = ['--eval', "process.stdin.on('data', (chunk) => process.stdout.write(chunk))"];

const parameters = (env: Record<string, string> = {}): StdioServerParameters => ({ command: process.execPath, args: ECHO, env: { ...getDefaultEnvironment(), ...env }, stderr: 'pipe' });

/** What the SDK's transport passes to spawn for these parameters. */
const sdkOptions = (given: StdioServerParameters): SpawnOptions => ({
  env: { ...getDefaultEnvironment(), ...given.env },
  stdio: ['pipe', 'pipe', given.stderr ?? 'inherit'],
  shell: false,
  windowsHide: false,
  cwd: given.cwd,
});

const taken: ChildProcess[] = [];
const take = (given: StdioServerParameters) => {
  const child = takeEarlyStarted(given.command, given.args ?? [], sdkOptions(given));
  if (child) taken.push(child);
  return child;
};

afterEach(async () => {
  endUnclaimed();
  for (const child of taken.splice(0)) if (child.exitCode === null && child.signalCode === null) {
    child.kill();
    await once(child, 'exit');
  }
});

describe('a process started early', () => {
  it('is handed to the start of the same process, with its spawn event, and carries its protocol', async () => {
    const given = parameters({ SERVER_SETTING: 'a' });
    await once(startEarly(given), 'spawn');

    const child = take(given);
    const spawned = once(child!, 'spawn');
    child!.stdin!.write('ping\n');
    const [echoed] = await once(child!.stdout!, 'data');

    await spawned;
    expect(child!.pid).toBeGreaterThan(0);
    expect(String(echoed)).toBe('ping\n');
    // Handed over once: the next start of it starts its own.
    expect(take(given)).toBeUndefined();
  });

  it('taken before its spawn event, gives the caller that event once', async () => {
    const given = parameters({ SERVER_SETTING: 'now' });
    startEarly(given);

    const child = take(given)!;
    let spawnEvents = 0;
    child.on('spawn', () => (spawnEvents += 1));
    child.stdin!.write('ping\n');
    await once(child.stdout!, 'data');

    expect(spawnEvents).toBe(1);
  });

  it('is not handed to a start with other arguments, another environment or another working directory', async () => {
    startEarly(parameters({ SERVER_SETTING: 'a' }));

    expect(take(parameters({ SERVER_SETTING: 'b' }))).toBeUndefined();
    expect(take({ ...parameters({ SERVER_SETTING: 'a' }), args: [...ECHO, 'extra'] })).toBeUndefined();
    expect(take({ ...parameters({ SERVER_SETTING: 'a' }), cwd: '/' })).toBeUndefined();
    // A spawn option the early start did not use (one an SDK update might add) starts a process of its own too.
    expect(takeEarlyStarted(process.execPath, ECHO, { ...sdkOptions(parameters({ SERVER_SETTING: 'a' })), detached: true })).toBeUndefined();
    expect(take(parameters({ SERVER_SETTING: 'a' }))).toBeDefined();
  });

  it('is not handed over once it has exited, nor when it never started', async () => {
    const exiting = { command: process.execPath, args: ['--eval', 'process.exit(3)'], env: getDefaultEnvironment(), stderr: 'pipe' as const };
    const missing = { command: '/nonexistent/mcp-server', args: [], env: getDefaultEnvironment(), stderr: 'pipe' as const };
    // The start that failed is told to the early start's own listener, not thrown in the function's face.
    await Promise.all([once(startEarly(exiting), 'exit'), once(startEarly(missing), 'error')]);

    expect(take(exiting)).toBeUndefined();
    expect(take(missing)).toBeUndefined();
  });

  it('is ended when no start took it; one taken keeps running', async () => {
    const given = { command: process.execPath, args: ['--eval', 'setInterval(() => {}, 1000)'], env: getDefaultEnvironment(), stderr: 'pipe' as const };
    const first = startEarly(given);
    const second = startEarly(given);
    await Promise.all([once(first, 'spawn'), once(second, 'spawn')]);
    const kept = take(given)!;
    const unclaimed = kept === first ? second : first;

    endUnclaimed();

    const [, signal] = await once(unclaimed, 'exit');
    expect(signal).toBe('SIGTERM');
    expect(kept.exitCode).toBeNull();
    expect(take(given)).toBeUndefined();
  });
});

describe('the environment a stdio server inherits', () => {
  it('is the MCP SDK\'s, shell functions left out', () => {
    const shell = process.env.SHELL;
    process.env.SHELL = '() { echo hi; }';
    try {
      expect(inheritedEnvironment()).toEqual(getDefaultEnvironment());
      expect(inheritedEnvironment()).not.toHaveProperty('SHELL');
    } finally {
      if (shell === undefined) delete process.env.SHELL;
      else process.env.SHELL = shell;
    }
    expect(inheritedEnvironment()).toEqual(getDefaultEnvironment());
    expect(stdioServerParameters({ name: 's', type: 'stdio', command: 'node', args: ['x.js'], env: { A: '1' } })).toEqual({ command: process.execPath, args: ['x.js'], env: { ...getDefaultEnvironment(), A: '1' }, stderr: 'pipe' });
  });
});
