/**
 * Stdio MCP servers started while a Lambda function loads, before the agent exists, and handed to
 * the SDK's transport when it starts the same process (in the bundles the SDK's `cross-spawn` is
 * functions/substitutes/linux-spawn.ts, which asks here first). A server's own start-up, a second
 * process loading its code, then runs beside the function's instead of on the first turn's path.
 *
 * A process is handed over only to a start with the very same command, arguments, environment,
 * working directory and stdio, and only while it runs: anything else starts its own, as before.
 * Whatever is not taken once the servers have connected is ended (endUnclaimed).
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';
import { inheritedEnvironment } from './stdio-parameters.ts';

interface EarlyProcess {
  child: ChildProcess;
  spawned: boolean;
  failed: boolean;
}

const waiting = new Map<string, EarlyProcess[]>();

/** Starts the process the SDK's transport would start for these parameters (client/stdio.js `start`). */
export function startEarly(parameters: StdioServerParameters): ChildProcess {
  const args = parameters.args ?? [];
  const options: SpawnOptions = {
    // The transport merges the inherited variables in again: the same environment.
    env: { ...inheritedEnvironment(), ...parameters.env },
    stdio: ['pipe', 'pipe', parameters.stderr ?? 'inherit'],
    shell: false,
    windowsHide: process.platform === 'win32',
    cwd: parameters.cwd,
  };
  const early: EarlyProcess = { child: spawn(parameters.command, args, options), spawned: false, failed: false };
  // Without a listener a failed start (a command that does not exist) would end the function.
  early.child.once('error', () => (early.failed = true));
  early.child.once('spawn', () => (early.spawned = true));
  const key = keyOf(parameters.command, args, options);
  waiting.set(key, [...(waiting.get(key) ?? []), early]);
  return early.child;
}

/**
 * The process started early for exactly this start, if one is still running; it emits `spawn`
 * again for the caller's listeners, as a process started now would.
 */
export function takeEarlyStarted(command: string, args: readonly string[], options: SpawnOptions): ChildProcess | undefined {
  const key = keyOf(command, args, options);
  const candidates = waiting.get(key);
  if (!candidates) return undefined;
  const index = candidates.findIndex(running);
  if (index < 0) return undefined;
  const [early] = candidates.splice(index, 1);
  if (candidates.length === 0) waiting.delete(key);
  const { child } = early!;
  if (early!.spawned) process.nextTick(() => child.emit('spawn'));
  return child;
}

/** Ends every process started early that no transport took; the next start of its server starts its own. */
export function endUnclaimed(): void {
  for (const candidates of waiting.values()) for (const { child } of candidates) if (child.exitCode === null && child.signalCode === null) child.kill();
  waiting.clear();
}

const running = (early: EarlyProcess) => !early.failed && early.child.pid !== undefined && early.child.exitCode === null && early.child.signalCode === null;

/**
 * Every spawn option takes part (an option the SDK starts passing one day makes the keys differ, and
 * the transport starts its own process); the environment by its entries in name order.
 */
function keyOf(command: string, args: readonly string[], options: SpawnOptions): string {
  const { env = {}, cwd, ...others } = options;
  return JSON.stringify([command, args, definedByName(env), definedByName({ ...others, cwd: cwd === undefined ? undefined : String(cwd) })]);
}

const definedByName = (entries: Record<string, unknown>) =>
  Object.entries(entries).filter(([, value]) => value !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
