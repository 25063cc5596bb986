/**
 * The cold start of a loop written without the project (the hand-written baseline, the AI SDK's
 * agent), each bundled on its own with the same settings: a fresh process connects to the MCP
 * server, lists its tools and answers one conversation. It reads its settings from the
 * environment, as a Lambda function would. `loadedMs` is taken by the entry file, after its
 * imports have been evaluated.
 */
import type { BaselineAgent, BaselineOptions } from './baseline-loop.ts';
import type { ColdReport } from './cold-report.ts';

export async function answerCold(loadedMs: number, createAgent: (options: BaselineOptions) => Promise<BaselineAgent>): Promise<void> {
  const environment = process.env;
  const agent = await createAgent({
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
  if (!reply.startsWith('Done after')) throw new Error(`the loop answered ${JSON.stringify(reply)}`);
  const report: ColdReport = { loadedMs, answeredMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024 };
  process.send!(report, () => void agent.close().then(() => process.exit(0)));
}
