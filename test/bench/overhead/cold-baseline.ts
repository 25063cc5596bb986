/**
 * The cold start of the hand-written baseline (baseline-loop.ts), bundled with the same settings:
 * a fresh process connects to the MCP server, lists its tools and answers one conversation. It
 * reads its settings from the environment, as a Lambda function would.
 */
import { createBaselineAgent } from './baseline-loop.ts';
import type { ColdReport } from './cold-report.ts';

// The bundle evaluates every import before this line: the code is loaded.
const loadedMs = performance.now();
const environment = process.env;
const agent = await createBaselineAgent({
  baseURL: environment.OPENAI_BASE_URL ?? '',
  apiKey: environment.OPENAI_API_KEY ?? '',
  model: environment.LLM_MODEL ?? '',
  temperature: Number(environment.BENCH_TEMPERATURE),
  systemPrompt: environment.BENCH_SYSTEM_PROMPT ?? '',
  maxRounds: Number(environment.BENCH_MAX_ROUNDS),
  server: { command: process.execPath, args: [environment.BENCH_ADD_SERVER ?? ''] },
});
const reply = await agent.ask('cold-start', 'Add up a few numbers.');
const answeredMs = performance.now();
const cpu = process.cpuUsage();
if (!reply.startsWith('Done after')) throw new Error(`the baseline answered ${JSON.stringify(reply)}`);
const report: ColdReport = { loadedMs, answeredMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024 };
process.send!(report, () => void agent.close().then(() => process.exit(0)));
