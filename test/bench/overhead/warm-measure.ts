import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { threadCpuMs } from './thread-cpu.ts';
/**
 * What a warm child process measures, for either loop: after a few conversations to warm the JIT,
 * the connections and the MCP session, it runs `conversations` conversations one after another
 * (one turn each) and reports wall and CPU time per round, and the process's peak RSS. The report
 * goes to the parent over the IPC channel; stdout is left to the loop's own logging.
 */
export interface WarmSettings {
  /**
   * `project untraced`: the project with agent.yml `trace.enabled: false`, to see what the turn
   * trace costs; `project bedrock`: the project on Bedrock's Converse (the stand-in, bedrock-server.ts)
   * instead of the OpenAI-compatible server, on the same scripted conversation; `project telemetry`:
   * the project exporting OpenTelemetry to `otlpEndpoint` (a sink in the parent); `ai sdk`: the
   * Vercel AI SDK's agent (ai-sdk-loop.ts).
   */
  side: 'project' | 'project untraced' | 'project bedrock' | 'project telemetry' | 'ai sdk' | 'baseline';
  otlpEndpoint?: string;
  baseURL: string;
  model: string;
  /** Model replies per turn: the tool rounds and the answer. */
  roundsPerTurn: number;
  conversations: number;
  warmup: number;
  systemPrompt: string;
  temperature: number;
  maxRounds: number;
  /** The MCP server's command line. */
  server: { command: string; args: string[] };
}

export interface WarmReport {
  side: WarmSettings['side'];
  model: string;
  rounds: number;
  wallMsPerRound: number;
  cpuMsPerRound: number;
  peakRssMb: number;
  /**
   * Full (mark-compact) garbage collections during the measured conversations (after the one that
   * ends the warm-up): one costs a window of 1 round of 1 call about a fifth more CPU per round
   * (docs/benchmarks.md).
   */
  majorGcs: number;
  /**
   * The share of the measured CPU time spent outside the main thread (thread-cpu.ts): V8 compiling
   * the functions that became hot, and helping the garbage collector. Linux only.
   */
  otherThreadsShare?: number;
}

/** Settings arrive as one JSON argument, so the child needs no argument parser of its own. */
export function readSettings(): WarmSettings {
  const text = process.argv[2];
  if (!text) throw new Error('usage: node warm-<side>.ts <settings JSON>');
  return JSON.parse(text) as WarmSettings;
}

export async function measureWarm(settings: WarmSettings, ask: (conversationId: string) => Promise<void>): Promise<WarmReport> {
  for (let index = 0; index < settings.warmup; index += 1) await ask(`warm-${index}`);
  // A Node process collects its whole heap for the first time once the heap outgrows the size it
  // started with, a few hundred ms in: that one collection (and what V8 has to learn again after it)
  // cost a 1x1 window a fifth more CPU per round, and it fell within the window or in the warm-up
  // depending on how much a loop had loaded (the project's often within it, the baseline's before it).
  // So the warm-up ends with a full collection in every loop alike, and every window starts after it.
  if (typeof globalThis.gc !== 'function') throw new Error('run the warm children with --expose-gc');
  globalThis.gc();
  let majorGcs = 0;
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if ((entry as GcEntry).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs += 1;
  });
  collections.observe({ entryTypes: ['gc'] });
  const threadsBefore = threadCpuMs();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < settings.conversations; index += 1) await ask(`measured-${index}`);
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const threadsAfter = threadCpuMs();
  const rounds = settings.conversations * settings.roundsPerTurn;
  // GC entries reach the observer a little after the collection: wait for the window's last ones.
  await new Promise((resolve) => setTimeout(resolve, 20));
  collections.disconnect();
  return {
    side: settings.side,
    model: settings.model,
    rounds,
    wallMsPerRound: wallMs / rounds,
    cpuMsPerRound: (cpu.user + cpu.system) / 1000 / rounds,
    // resourceUsage reports kilobytes.
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    majorGcs,
    ...(threadsBefore && threadsAfter ? { otherThreadsShare: shareOf(threadsBefore, threadsAfter) } : {}),
  };
}

function shareOf(before: { main: number; other: number }, after: { main: number; other: number }): number {
  const other = after.other - before.other;
  const all = other + after.main - before.main;
  return all > 0 ? other / all : 0;
}

type GcEntry = PerformanceEntry & { detail?: { kind?: number } };

export function report(result: WarmReport): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('run as a child process with an IPC channel'));
    process.send(result, (error: Error | null) => (error ? reject(error) : resolve()));
  });
}
