/**
 * Runs one benchmark program in a child process of its own and waits for its one report over IPC,
 * so that each side's peak RSS is its own and no side's garbage or JIT state reaches the other.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ChildRun<Report> {
  report: Report;
  /** From spawn to the report, on the parent's clock. */
  wallMs: number;
  /** CPU of the child and of the processes it waited for (its MCP server), after it exited. */
  treeCpuMs: number;
}

/** Ample for any run here; a child that hangs fails the benchmark instead of stalling it. */
const CHILD_LIMIT_MS = 10 * 60_000;
const ERROR_TAIL_CHARACTERS = 4_000;

export function runChild<Report>(
  file: string,
  settings: unknown,
  options: { nodeArguments?: string[]; environment?: NodeJS.ProcessEnv } = {},
): Promise<ChildRun<Report>> {
  return new Promise((resolve, reject) => {
    const cpuBefore = childrenCpuMs();
    const started = performance.now();
    const child = spawn(process.execPath, [...(options.nodeArguments ?? []), file, JSON.stringify(settings)], {
      // The project logs to stderr, one line per turn event: kept only to explain a failure.
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: options.environment ?? process.env,
    });
    let report: { value: Report; wallMs: number } | undefined;
    let errorTail = '';
    child.stderr?.on('data', (chunk: Buffer) => (errorTail = (errorTail + chunk.toString('utf8')).slice(-ERROR_TAIL_CHARACTERS)));
    const limit = setTimeout(() => child.kill('SIGKILL'), CHILD_LIMIT_MS);
    child.on('message', (message) => (report ??= { value: message as Report, wallMs: performance.now() - started }));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(limit);
      if (report === undefined || code !== 0) {
        return reject(new Error(`${file} exited with ${signal ?? code} ${report ? 'after' : 'before'} its report; its stderr ended with:\n${errorTail}`));
      }
      resolve({ report: report.value, wallMs: report.wallMs, treeCpuMs: childrenCpuMs() - cpuBefore });
    });
  });
}

/**
 * The CPU time of this process's waited-for children, theirs included (cutime + cstime in
 * /proc/self/stat, in clock ticks of 10 ms): the only count that includes a grandchild such as
 * the MCP server, which the child starts and reaps itself. Linux only, like Lambda.
 */
export function childrenCpuMs(): number {
  try {
    const stat = readProcStat();
    // Fields after the command name (which may hold spaces), from field 3 on: cutime is 16, cstime 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

const readProcStat = () => readFileSync('/proc/self/stat', 'utf8');
