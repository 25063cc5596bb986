/**
 * The warm comparison: the project's loop and the hand-written baseline, each in child processes
 * of its own, in alternating order batch after batch (so a noisy moment of the machine hits both),
 * on each turn shape. Reports the median of the batches for each side, and the project's ratio to
 * the baseline.
 */
import path from 'node:path';
import { parseConfig } from '../../../lib/config/load.ts';
import { runChild } from './child.ts';
import { FUNCTION_NODE_OPTIONS } from '../../../infra/function-runtime.ts';
import type { BedrockServer } from './bedrock-server.ts';
import type { AgainstProgram } from './against.ts';
import type { BundleFolder } from './bundles.ts';
import { shapeModelName, type ModelServer, type TurnShape } from './model-server.ts';
import type { WarmReport, WarmSettings } from './warm-measure.ts';

export interface WarmOptions {
  shapes: TurnShape[];
  batches: number;
  conversations: number;
  warmup: number;
  model: ModelServer;
  /** Bundles to run (as deployed); without, the TypeScript sources run directly (for profiles). */
  bundles?: BundleFolder;
  /** Extra node arguments for the children, e.g. --cpu-prof. */
  nodeArguments?: string[];
  /** Also run the project with its turn trace off (a third side, compared to the baseline too). */
  untraced?: boolean;
  /** Also run the Vercel AI SDK's agent (ai-sdk-loop.ts), compared to the baseline like the project. */
  aiSdk?: boolean;
  /** Also run the project on Bedrock's Converse against this stand-in, on the same conversation (another side). */
  bedrock?: BedrockServer;
  /** Also run the project exporting OpenTelemetry to this OTLP/HTTP endpoint (another side). */
  otlpEndpoint?: string;
  /** Also run another checkout's project (against.ts), paired batch by batch with this one's. */
  against?: AgainstProgram;
}

/** The sides of a run: the children's own, and another checkout's project (`--against`), whose child runs as `project`. */
export type WarmSide = WarmSettings['side'] | 'project against';

export interface WarmRow {
  shape: string;
  side: WarmSide;
  wallMsPerRound: number;
  cpuMsPerRound: number;
  peakRssMb: number;
  /** Batches with a full garbage collection during their measured conversations (WarmReport.majorGcs), of `batches`. */
  batchesWithMajorGc: number;
  batches: number;
  /** Median of the batches' WarmReport.otherThreadsShare (Linux only). */
  otherThreadsShare?: number;
  cpuRatio?: number;
  wallRatio?: number;
  rssDifferenceMb?: number;
  /**
   * `project` with `--against`: the median over the batches of its CPU per round divided by the
   * other checkout's in the same batch (run next to each other, so a noisy moment hits both).
   */
  pairedRatio?: number;
}

const here = (file: string) => path.join(import.meta.dirname, file);

export async function runWarm(options: WarmOptions): Promise<WarmRow[]> {
  const programs = options.bundles
    ? {
        project: await options.bundles.bundle('test/bench/overhead/warm-project.ts', 'warm-project.mjs'),
        baseline: await options.bundles.bundle('test/bench/overhead/warm-baseline.ts', 'warm-baseline.mjs'),
        aiSdk: await options.bundles.bundle('test/bench/overhead/warm-ai-sdk.ts', 'warm-ai-sdk.mjs'),
        server: await options.bundles.bundle('test/bench/overhead/add-server.ts', 'add-server.mjs'),
      }
    : { project: here('warm-project.ts'), baseline: here('warm-baseline.ts'), aiSdk: here('warm-ai-sdk.ts'), server: here('add-server.ts') };
  // Both loops get the project's defaults for what they share (system prompt, temperature, rounds).
  const defaults = parseConfig('{}', { source: 'defaults', environment: {} });
  const reports = new Map<string, WarmReport[]>();
  const sides: readonly WarmSide[] = [
    'project',
    ...(options.against ? (['project against'] as const) : []),
    ...(options.untraced ? (['project untraced'] as const) : []),
    ...(options.bedrock ? (['project bedrock'] as const) : []),
    ...(options.otlpEndpoint ? (['project telemetry'] as const) : []),
    ...(options.aiSdk ? (['ai sdk'] as const) : []),
    'baseline',
  ];
  for (let batch = 0; batch < options.batches; batch += 1) {
    const order = batch % 2 === 0 ? sides : [...sides].reverse();
    for (const shape of options.shapes) {
      for (const side of order) {
        const settings: WarmSettings = {
          side: side === 'project against' ? 'project' : side,
          baseURL: options.model.baseURL,
          model: shapeModelName(shape),
          roundsPerTurn: shape.toolRounds + 1,
          conversations: options.conversations,
          warmup: options.warmup,
          systemPrompt: defaults.systemPrompt,
          temperature: defaults.model.temperature,
          maxRounds: defaults.maxRounds,
          server: { command: process.execPath, args: [programs.server] },
          ...(side === 'project telemetry' ? { otlpEndpoint: options.otlpEndpoint } : {}),
        };
        const server = side === 'project bedrock' ? options.bedrock! : options.model;
        const requestsBefore = server.requests();
        const program = side === 'baseline' ? programs.baseline : side === 'ai sdk' ? programs.aiSdk : side === 'project against' ? options.against!.program : programs.project;
        // The project runs with the Node options the stack gives the functions; the loops without it need none.
        const asDeployed = side.startsWith('project') ? { ...process.env, NODE_OPTIONS: FUNCTION_NODE_OPTIONS } : process.env;
        const environment = side === 'project bedrock' ? { ...asDeployed, ...options.bedrock!.environment } : asDeployed;
        // --expose-gc: every loop's warm-up ends with a full garbage collection (warm-measure.ts).
        const { report } = await runChild<WarmReport>(program, settings, { nodeArguments: ['--expose-gc', ...(options.nodeArguments ?? [])], environment });
        const expected = (options.conversations + options.warmup) * settings.roundsPerTurn;
        const made = server.requests() - requestsBefore;
        if (made !== expected) throw new Error(`${side} made ${made} model requests on ${settings.model}, expected ${expected}`);
        const key = `${settings.model} ${side}`;
        reports.set(key, [...(reports.get(key) ?? []), report]);
      }
    }
  }
  return options.shapes.flatMap((shape) => {
    const rows = sides.map((side): WarmRow => {
      const runs = reports.get(`${shapeModelName(shape)} ${side}`) ?? [];
      return {
        shape: describeShape(shape),
        side,
        wallMsPerRound: median(runs.map((run) => run.wallMsPerRound)),
        cpuMsPerRound: median(runs.map((run) => run.cpuMsPerRound)),
        peakRssMb: median(runs.map((run) => run.peakRssMb)),
        batchesWithMajorGc: runs.filter((run) => run.majorGcs > 0).length,
        batches: runs.length,
        ...(runs.every((run) => run.otherThreadsShare !== undefined) && runs.length > 0 ? { otherThreadsShare: median(runs.map((run) => run.otherThreadsShare!)) } : {}),
      };
    });
    const baseline = rows.at(-1)!;
    for (const project of rows.slice(0, -1)) {
      project.cpuRatio = project.cpuMsPerRound / baseline.cpuMsPerRound;
      project.wallRatio = project.wallMsPerRound / baseline.wallMsPerRound;
      project.rssDifferenceMb = project.peakRssMb - baseline.peakRssMb;
    }
    if (options.against) {
      const ours = reports.get(`${shapeModelName(shape)} project`) ?? [];
      const theirs = reports.get(`${shapeModelName(shape)} project against`) ?? [];
      rows[0]!.pairedRatio = median(ours.map((report, batch) => report.cpuMsPerRound / theirs[batch]!.cpuMsPerRound));
    }
    return rows;
  });
}

export const describeShape = (shape: TurnShape) =>
  `${shape.toolRounds} round${shape.toolRounds === 1 ? '' : 's'} of ${shape.callsPerRound} call${shape.callsPerRound === 1 ? '' : 's'}`;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
