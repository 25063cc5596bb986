/**
 * The cold start: the stream function bundled with the stack's esbuild settings and started the way
 * Lambda starts it (a new process loads the bundle with the stack's environment, then handles one
 * `POST /conversations`), against the hand-written baseline and the Vercel AI SDK's agent
 * (ai-sdk-loop.ts), each bundled the same way. Each run is a new
 * process that starts its MCP server (the bundled `add` server) and answers one conversation of
 * one round of one call; the project's function also stores it in DynamoDB (dynalite, in the
 * parent). With a Bedrock stand-in (`--bedrock`), the stream function bundled for Bedrock is started
 * the same way, answered through Converse. Runs alternate between the programs.
 *
 *   wall            spawn → the first turn answered (the parent's clock)
 *   loaded          process start → the code loaded (the function module, its top-level awaits included)
 *   CPU             the process's own CPU when the turn was answered
 *   CPU with server the process and its MCP server, until both exited (10 ms ticks); the AI SDK's
 *                   MCP client ends its server without waiting for it, so its server is mostly missed
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundledConfig } from '../../../infra/bundled-config.ts';
import { BEDROCK_FUNCTION_BUNDLE, BUNDLED_AGENT_CONFIG, PROJECT_ROOT } from '../../../infra/bundling.ts';
import { ENV } from '../../../lib/config/environment.ts';
import { parseConfig } from '../../../lib/config/load.ts';
import { connectionEnvironment } from '../../../lib/local/dynamo-connection.ts';
import { startLocalTable } from '../../support/dynalite.ts';
import type { BedrockServer } from './bedrock-server.ts';
import type { BundleFolder } from './bundles.ts';
import { runChild } from './child.ts';
import { FUNCTION_NODE_OPTIONS } from '../../../infra/function-runtime.ts';
import type { ColdReport } from './cold-report.ts';
import { shapeModelName, type ModelServer } from './model-server.ts';
import { median } from './warm.ts';

export interface ColdRow {
  program: string;
  wallMs: number;
  loadedMs: number;
  cpuMs: number;
  treeCpuMs: number;
  peakRssMb: number;
  cpuRatio?: number;
  wallRatio?: number;
  /** The project's ratios to the AI SDK's agent (the bar). */
  cpuVsAiSdk?: number;
  wallVsAiSdk?: number;
}

export interface ColdOptions {
  runs: number;
  model: ModelServer;
  bundles: BundleFolder;
  /** Run the TypeScript sources rather than the bundles (for readable profiles; not a cold start Lambda would see). */
  source?: boolean;
  /** Extra node arguments for the children, e.g. --cpu-prof. */
  nodeArguments?: string[];
  /** Also start the stream function bundled for Bedrock (infra/bundling.ts), answered by this stand-in. */
  bedrock?: BedrockServer;
}

export async function runCold(options: ColdOptions): Promise<ColdRow[]> {
  const { bundles } = options;
  const here = (file: string) => path.join(import.meta.dirname, file);
  const functionBundle = options.source
    ? path.join(PROJECT_ROOT, 'functions', 'stream.ts')
    : await bundles.bundle('functions/stream.ts', 'stream/index.mjs', { lambdaFunction: true });
  const bedrockBundle = options.source || !options.bedrock
    ? functionBundle
    : await bundles.bundle('functions/stream.ts', 'stream-bedrock/index.mjs', { lambdaFunction: BEDROCK_FUNCTION_BUNDLE });
  const addServer = await bundles.bundle('test/bench/overhead/add-server.ts', 'add-server.mjs');
  const programs = options.source
    ? { project: here('cold-project.ts'), baseline: here('cold-baseline.ts'), aiSdk: here('cold-ai-sdk.ts') }
    : {
        project: await bundles.bundle('test/bench/overhead/cold-project.ts', 'cold-project.mjs'),
        baseline: await bundles.bundle('test/bench/overhead/cold-baseline.ts', 'cold-baseline.mjs'),
        aiSdk: await bundles.bundle('test/bench/overhead/cold-ai-sdk.ts', 'cold-ai-sdk.mjs'),
      };
  const agentConfig = path.join(bundles.folder, BUNDLED_AGENT_CONFIG);
  // Written as the stack's build writes it: pre-validated (infra/bundled-config.ts).
  writeFileSync(agentConfig, bundledConfig(JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [addServer] } } }), 'agent.yml'));
  const defaults = parseConfig('{}', { source: 'defaults', environment: {} });
  const table = await startLocalTable();
  const shared = {
    PATH: process.env.PATH ?? '',
    [ENV.modelBaseUrl]: options.model.baseURL,
    [ENV.modelApiKey]: 'bench',
    [ENV.modelName]: shapeModelName({ toolRounds: 1, callsPerRound: 1 }),
  };
  const loop = {
    ...shared,
    BENCH_ADD_SERVER: addServer,
    BENCH_SYSTEM_PROMPT: defaults.systemPrompt,
    BENCH_TEMPERATURE: String(defaults.model.temperature),
    BENCH_MAX_ROUNDS: String(defaults.maxRounds),
  };
  const environments = {
    project: {
      ...shared,
      ...connectionEnvironment(table.connection),
      BENCH_FUNCTION_BUNDLE: functionBundle,
      [ENV.agentConfig]: agentConfig,
      [ENV.conversationsTable]: table.tableName,
      // As npm start runs the function: Powertools' metric lines are for CloudWatch.
      POWERTOOLS_METRICS_DISABLED: 'true',
      // The Node options the stack gives the functions.
      NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
    },
    // The same function on Bedrock: the stand-in's region and keys (as Lambda gives a role's), which dynalite takes too.
    bedrock: {
      ...shared,
      ...connectionEnvironment(table.connection),
      BENCH_FUNCTION_BUNDLE: bedrockBundle,
      [ENV.agentConfig]: agentConfig,
      [ENV.conversationsTable]: table.tableName,
      POWERTOOLS_METRICS_DISABLED: 'true',
      NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
      [ENV.modelProvider]: 'bedrock',
      ...options.bedrock?.environment,
    },
    // The two loops written without the project read the same settings (cold-loop.ts).
    aiSdk: loop,
    baseline: loop,
  };
  const runs = { project: [] as ColdRow[], bedrock: [] as ColdRow[], aiSdk: [] as ColdRow[], baseline: [] as ColdRow[] };
  const sides = options.bedrock ? (['project', 'bedrock', 'aiSdk', 'baseline'] as const) : (['project', 'aiSdk', 'baseline'] as const);
  try {
    for (let run = 0; run < options.runs; run += 1) {
      const order = run % 2 === 0 ? sides : [...sides].reverse();
      for (const program of order) {
        const file = program === 'baseline' ? programs.baseline : program === 'aiSdk' ? programs.aiSdk : programs.project;
        const { report, wallMs, treeCpuMs } = await runChild<ColdReport>(file, {}, { environment: environments[program], nodeArguments: options.nodeArguments ?? [] });
        runs[program].push({ program, wallMs, loadedMs: report.loadedMs, cpuMs: report.cpuMs, treeCpuMs, peakRssMb: report.peakRssMb });
      }
    }
  } finally {
    await table.close();
  }
  const summary = (program: keyof typeof runs): ColdRow => {
    const rows = runs[program];
    const middle = (pick: (row: ColdRow) => number) => median(rows.map(pick));
    return {
      program: PROGRAM_NAMES[program],
      wallMs: middle((row) => row.wallMs),
      loadedMs: middle((row) => row.loadedMs),
      cpuMs: middle((row) => row.cpuMs),
      treeCpuMs: middle((row) => row.treeCpuMs),
      peakRssMb: middle((row) => row.peakRssMb),
    };
  };
  const projects = sides.filter((side) => side !== 'baseline' && side !== 'aiSdk').map(summary);
  const aiSdk = summary('aiSdk');
  const baseline = summary('baseline');
  for (const row of [...projects, aiSdk]) {
    row.cpuRatio = row.cpuMs / baseline.cpuMs;
    row.wallRatio = row.wallMs / baseline.wallMs;
  }
  for (const project of projects) {
    project.cpuVsAiSdk = project.cpuMs / aiSdk.cpuMs;
    project.wallVsAiSdk = project.wallMs / aiSdk.wallMs;
  }
  return [...projects, aiSdk, baseline];
}

const PROGRAM_NAMES = {
  project: 'project: stream function',
  bedrock: 'project: stream function on Bedrock',
  aiSdk: 'AI SDK agent: ai + @ai-sdk/openai-compatible + @ai-sdk/mcp',
  baseline: 'baseline: openai + MCP SDK',
} as const;
