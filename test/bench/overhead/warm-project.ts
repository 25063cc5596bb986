/**
 * A warm child process running the project's loop as code embedding it would: buildAgent with the
 * in-memory conversation store, the real OpenAI-compatible model adapter (or, for the side
 * `project bedrock`, the real Converse adapter) and the real MCP gateway, configured from agent.yml text. Logging stays on (the default JSON logger, to stdout), as deployed.
 * zod parses without generating code, as in the functions (functions/interpreted-zod.ts).
 */
import '../../../functions/interpreted-zod.ts';
import { buildAgent, createMemoryConversationStore, parseConfig } from '../../../lib/index.ts';
import { loadTelemetry } from '../../../lib/telemetry.ts';
import { measureWarm, readSettings, report } from './warm-measure.ts';

const settings = readSettings();
const bedrock = settings.side === 'project bedrock';
const config = parseConfig(
  JSON.stringify({
    maxRounds: settings.maxRounds,
    model: bedrock
      ? { provider: 'bedrock', name: settings.model, temperature: settings.temperature }
      : { name: settings.model, baseURL: settings.baseURL, apiKey: 'bench', temperature: settings.temperature },
    mcpServers: { bench: { command: settings.server.command, args: settings.server.args } },
    ...(settings.side === 'project untraced' ? { trace: { enabled: false } } : {}),
  }),
  // On Bedrock: the stand-in's endpoint and region (its keys are in the environment, for the credential chain).
  { source: 'bench.yml', environment: bedrock ? { BEDROCK_ENDPOINT: process.env.BEDROCK_ENDPOINT, AWS_REGION: process.env.AWS_REGION } : {} },
);
// `project telemetry`: every span and metric exported, as a deployed stack with otelExporterEndpoint does.
const telemetry = settings.side === 'project telemetry' ? await loadTelemetry(config, { OTEL_EXPORTER_OTLP_ENDPOINT: settings.otlpEndpoint }) : undefined;
const agent = buildAgent(config, { store: createMemoryConversationStore(), ...(telemetry ? { telemetry } : {}) });
const result = await measureWarm(settings, async (conversationId) => {
  const turn = await agent.ask({ conversationId, message: 'Add up a few numbers.' });
  const failed = turn.toolCalls.filter((call) => !call.ok).length;
  if (turn.stopReason !== 'completed' || turn.rounds !== settings.roundsPerTurn || failed > 0) {
    throw new Error(`the project's turn ended ${turn.stopReason} after ${turn.rounds} rounds with ${failed} failed calls: ${turn.reply}`);
  }
});
await report(result);
await agent.close();
process.exit(0);
