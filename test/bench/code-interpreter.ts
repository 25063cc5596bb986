/**
 * The code interpreter's sandbox (lib/adapters/python): how long a run takes from a cold start
 * (Pyodide loaded in a new worker) and from a warm one (a worker already loaded and waiting), how
 * long some real work takes, and the memory of the process with a worker waiting and while a run
 * holds 100 MB of Python objects. The figures are in docs/code-interpreter.md.
 * Run by hand: node --expose-gc test/bench/code-interpreter.ts [runs]
 */
import { createPythonSandbox, runPython } from '../../lib/adapters/python/sandbox.ts';

const RUNS = Number(process.argv[2] ?? 5);
const MB = 1024 * 1024;
const LIMITS = { timeoutMs: 60_000, maxMemoryBytes: 256 * MB };
const rssMb = () => Math.round(process.memoryUsage().rss / MB);
const collect = () => (globalThis as { gc?: () => void }).gc?.();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
const mustFinish = async (result: Promise<{ error?: string }>) => {
  const { error } = await result;
  if (error) throw new Error(`the benchmark's code failed: ${error}`);
};

collect();
const baselineMb = rssMb();

// Cold: a new worker loads Pyodide, then runs the code.
const cold: number[] = [];
for (let run = 0; run < RUNS; run++) cold.push(await timed(() => mustFinish(runPython({ ...LIMITS, code: 'print(1)' }))));

// Warm: the worker was loaded before the run was asked for.
const sandbox = createPythonSandbox();
const warm: number[] = [];
let idleMb = 0;
for (let run = 0; run < RUNS; run++) {
  await sandbox.warmUp(LIMITS.maxMemoryBytes);
  collect();
  idleMb = Math.max(idleMb, rssMb());
  warm.push(await timed(() => mustFinish(sandbox.runPython({ ...LIMITS, code: 'print(1)' }))));
}

// Work: the csv module over a 100,000-row file, on a warm worker.
const rows = Array.from({ length: 100_000 }, (_, index) => `${index % 7 === 0 ? 'north' : 'south'},${(index % 1000) / 10}`).join('\n');
await sandbox.warmUp(LIMITS.maxMemoryBytes);
const csv = await sandbox.runPython({
  ...LIMITS,
  code: 'import csv\ntotal = sum(float(row["amount"]) for row in csv.DictReader(open("sales.csv")))\nprint(round(total, 1))',
  files: [{ name: 'sales.csv', content: `region,amount\n${rows}` }],
});
if (csv.error) throw new Error(`the benchmark's code failed: ${csv.error}`);

// Memory while a run holds 100 MB of Python objects (with a warm worker loading beside it).
await sandbox.warmUp(LIMITS.maxMemoryBytes);
collect();
let peakMb = rssMb();
const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb())), 10);
await mustFinish(sandbox.runPython({ ...LIMITS, code: 'import time\nblocks = [bytearray(1_000_000) for _ in range(100)]\ntime.sleep(0.5)\nprint(len(blocks))' }));
clearInterval(sampler);
await sandbox.close();
collect();
const closedMb = rssMb();

const ms = (value: number) => `${Math.round(value).toLocaleString('en')} ms`;
console.log(`| measure (${RUNS} runs, median) | value |\n|---|---|`);
console.log(`| cold start: a new worker loads Pyodide and runs print(1) | ${ms(median(cold))} (fastest ${ms(Math.min(...cold))}) |`);
console.log(`| warm start: a loaded worker runs print(1) | ${ms(median(warm))} (fastest ${ms(Math.min(...warm))}) |`);
console.log(`| sum a column of a 100,000-row CSV (warm; the code's own time) | ${ms(csv.durationMs)} (${csv.stdout.trim()}) |`);
console.log(`| process RSS before any worker | ${baselineMb} MB |`);
console.log(`| process RSS with one loaded worker waiting | ${idleMb} MB (+${idleMb - baselineMb} MB) |`);
console.log(`| process RSS at its peak while a run holds 100 MB (a new worker loading beside it) | ${peakMb} MB (+${peakMb - baselineMb} MB) |`);
console.log(`| process RSS after the sandbox is closed | ${closedMb} MB |`);
