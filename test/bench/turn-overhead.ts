/**
 * `npm run bench` (node --expose-gc test/bench/turn-overhead.ts [options]): what the project costs
 * beyond the model and the tools, measured against a hand-written loop doing the same work
 * (overhead/baseline-loop.ts: only `openai` and the MCP SDK), on this machine, in one run.
 *
 *   warm        each loop in child processes of its own, alternating batch by batch, against a
 *               zero-latency OpenAI-compatible server and a stdio MCP server with one `add` tool:
 *               wall and CPU ms per round (a round is one model reply) and peak RSS, the median
 *               of the batches, and the project's ratio to the baseline (overhead/warm.ts); on
 *               Linux also the share of the CPU spent off the main thread, mostly V8 compiling
 *               (overhead/thread-cpu.ts)
 *   cold        the stream function bundled as the stack bundles it, started as Lambda starts it,
 *               spawn → first turn answered, against the baseline and the Vercel AI SDK's agent
 *               (overhead/ai-sdk-loop.ts) bundled the same way (overhead/cold.ts)
 *   bundles     each Lambda bundle's minified and gzipped size (infra/bundle-size.ts)
 *   dynamodb    DynamoDB requests per turn on dynalite (overhead/dynamodb-requests.ts)
 *   throughput  turns per second and latency percentiles in one process (overhead/throughput.ts)
 *
 * Options: --only warm,cold,... (default all); --shapes 5x2,1x1 (rounds of parallel calls, then the
 * answer; the default); --batches N (warm, default 6); --conversations N
 * (per warm process, default 100); --warmup N (conversations before measuring, default 50);
 * --cold-runs N (default 6); --source (the children run the TypeScript sources rather than
 * bundles); --cpu-prof DIR (the children write V8 CPU profiles there, and the bundles go to DIR/bundles
 * with source maps, which overhead/profile-summary.ts reads profiles through);
 * --markdown (tables for docs/benchmarks.md); --untraced (warm: also the project with trace.enabled false,
 * to see what the turn trace costs); --ai-sdk (warm: also the Vercel AI SDK's agent, which cold always
 * runs); --bedrock (warm: also the project on Bedrock's Converse against
 * the local stand-in, overhead/bedrock-server.ts, on the same conversation; cold: also the stream
 * function bundled for Bedrock); --telemetry (warm: also the project exporting OpenTelemetry to a
 * local OTLP/HTTP sink, overhead/otlp-sink.ts, with the bytes exported per turn); --against DIR (warm: also
 * the project of another checkout, say the code before a change in a `git worktree`, bundled by its own
 * bundles.ts, with the median batch-by-batch ratio of this project's CPU per round to it:
 * overhead/against.ts). Timings vary with the machine and its load: compare runs
 * on the same machine, and the ratios rather than the milliseconds.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { measureBundleSizes } from '../../infra/bundle-size.ts';
import { startBedrockServer } from './overhead/bedrock-server.ts';
import { againstProgram } from './overhead/against.ts';
import { createBundleFolder } from './overhead/bundles.ts';
import { runCold } from './overhead/cold.ts';
import { countDynamoRequests } from './overhead/dynamodb-requests.ts';
import { startModelServer, type TurnShape } from './overhead/model-server.ts';
import { bytes, fixed, megabytes, printTable, ratio } from './overhead/print.ts';
import { measureThroughput } from './overhead/throughput.ts';
import { runWarm } from './overhead/warm.ts';
import { startOtlpSink } from './overhead/otlp-sink.ts';

const SECTIONS = ['warm', 'cold', 'bundles', 'dynamodb', 'throughput'] as const;

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: SECTIONS.join(',') },
    shapes: { type: 'string', default: '5x2,1x1' },
    batches: { type: 'string', default: '6' },
    conversations: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '50' },
    'cold-runs': { type: 'string', default: '6' },
    source: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    markdown: { type: 'boolean', default: false },
    untraced: { type: 'boolean', default: false },
    bedrock: { type: 'boolean', default: false },
    telemetry: { type: 'boolean', default: false },
    'ai-sdk': { type: 'boolean', default: false },
    against: { type: 'string' },
  },
});
const sections = new Set(values.only.split(',').map((section) => section.trim()));
for (const section of sections) {
  if (!(SECTIONS as readonly string[]).includes(section)) throw new Error(`--only: unknown section ${section} (${SECTIONS.join(', ')})`);
}
const markdown = values.markdown;
/** `5x2`: 5 rounds of 2 parallel calls, then the answer. */
const SHAPES: TurnShape[] = values.shapes.split(',').map((text) => {
  const match = /^(\d+)x(\d+)$/.exec(text.trim());
  if (!match) throw new Error(`--shapes: ${text} is not <rounds>x<calls>`);
  return { toolRounds: Number(match[1]), callsPerRound: Number(match[2]) };
});

console.log(`${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'CPU'}, ${os.platform()} ${os.arch()}, load average ${os.loadavg()[0]!.toFixed(1)}`);
const model = await startModelServer();
const bedrock = values.bedrock ? await startBedrockServer() : undefined;
// Profiles of bundles are read through their source maps (overhead/profile-summary.ts).
const bundles = createBundleFolder(values['cpu-prof'] && !values.source ? { sourceMapsIn: path.join(values['cpu-prof'], 'bundles') } : {});
const sink = values.telemetry ? await startOtlpSink() : undefined;
const against = values.against && sections.has('warm') ? await againstProgram(values.against, values.source) : undefined;
try {
  if (sections.has('warm')) {
    const rows = await runWarm({
      shapes: SHAPES,
      batches: Number(values.batches),
      conversations: Number(values.conversations),
      warmup: Number(values.warmup),
      model,
      ...(values.source ? {} : { bundles }),
      ...(values['cpu-prof'] ? { nodeArguments: ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] } : {}),
      untraced: values.untraced,
      aiSdk: values['ai-sdk'],
      ...(bedrock ? { bedrock } : {}),
      ...(sink ? { otlpEndpoint: sink.url } : {}),
      ...(against ? { against } : {}),
    });
    printTable(
      `Warm: ${values.conversations} conversations per process after ${values.warmup} to warm up, median of ${values.batches} batches`,
      rows.map((row) => ({
        shape: row.shape,
        loop: row.side,
        'wall ms / round': fixed(row.wallMsPerRound),
        'CPU ms / round': fixed(row.cpuMsPerRound),
        'peak RSS': megabytes(row.peakRssMb),
        'CPU vs baseline': ratio(row.cpuRatio),
        'wall vs baseline': ratio(row.wallRatio),
        'RSS vs baseline': row.rssDifferenceMb === undefined ? '' : `${row.rssDifferenceMb >= 0 ? '+' : ''}${megabytes(row.rssDifferenceMb)}`,
        'full GC in window': `${row.batchesWithMajorGc} of ${row.batches}`,
        'CPU off the main thread': row.otherThreadsShare === undefined ? '' : `${Math.round(row.otherThreadsShare * 100)}%`,
      })),
      markdown,
    );
    for (const row of rows.filter((row) => row.pairedRatio !== undefined)) {
      console.log(`${row.shape}: CPU per round of this checkout's project against ${against!.folder}'s, batch by batch: median ${row.pairedRatio!.toFixed(3)}×`);
    }
    if (sink) {
      const turns = Number(values.batches) * SHAPES.length * (Number(values.conversations) + Number(values.warmup));
      console.log(`OpenTelemetry exported: ${sink.requests()} OTLP requests, ${bytes(sink.bytes())} in all, ${fixed(sink.bytes() / turns / 1024, 1)} KiB per turn (JSON, uncompressed; ${turns} turns)`);
    }
  }
  if (sections.has('cold')) {
    const rows = await runCold({
      runs: Number(values['cold-runs']),
      model,
      bundles,
      source: values.source,
      ...(values['cpu-prof'] ? { nodeArguments: ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] } : {}),
      ...(bedrock ? { bedrock } : {}),
    });
    printTable(
      `Cold start: spawn → first turn answered (1 round of 1 call), median of ${values['cold-runs']} runs each`,
      rows.map((row) => ({
        program: row.program,
        'wall ms': fixed(row.wallMs, 0),
        'loaded ms': fixed(row.loadedMs, 0),
        'CPU ms': fixed(row.cpuMs, 0),
        'CPU ms with MCP server': fixed(row.treeCpuMs, 0),
        'peak RSS': megabytes(row.peakRssMb),
        'CPU vs baseline': ratio(row.cpuRatio),
        'wall vs baseline': ratio(row.wallRatio),
        'CPU vs AI SDK': ratio(row.cpuVsAiSdk),
        'wall vs AI SDK': ratio(row.wallVsAiSdk),
      })),
      markdown,
    );
  }
  if (sections.has('bundles')) {
    const sizes = await measureBundleSizes();
    printTable(
      'Bundles (minified ESM as deployed, source maps not counted)',
      sizes.map((size) => ({ bundle: size.name, minified: bytes(size.minifiedBytes), gzip: bytes(size.gzipBytes) })),
      markdown,
    );
  }
  if (sections.has('dynamodb')) {
    const rows = await countDynamoRequests(SHAPES, model);
    printTable('DynamoDB requests per turn (dynalite, counted as the lean client sends them)', rows.map((row) => ({ ...row })), markdown);
  }
  if (sections.has('throughput')) {
    const rows = await measureThroughput();
    printTable(
      'Throughput in one process (instant scripted model; conversations side by side)',
      rows.map((row) => ({
        setup: row.setup,
        turns: row.turns,
        'concurrent conversations': row.conversations,
        'turns/s': fixed(row.turnsPerSecond, 0),
        'p50 ms': fixed(row.p50Ms),
        'p95 ms': fixed(row.p95Ms),
        'p99 ms': fixed(row.p99Ms),
        'heap growth': `${fixed(row.heapGrowthMb, 1)} MB`,
      })),
      markdown,
    );
  }
} finally {
  bundles.remove();
  against?.remove();
  await sink?.close();
  await model.close();
  await bedrock?.close();
}
