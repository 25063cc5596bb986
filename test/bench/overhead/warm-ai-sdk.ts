/** A warm child process running the Vercel AI SDK's agent (ai-sdk-loop.ts), as warm-baseline.ts runs the baseline. */
import { createAiSdkAgent } from './ai-sdk-loop.ts';
import { measureWarm, readSettings, report } from './warm-measure.ts';

const settings = readSettings();
const agent = await createAiSdkAgent({
  baseURL: settings.baseURL,
  apiKey: 'bench',
  model: settings.model,
  temperature: settings.temperature,
  systemPrompt: settings.systemPrompt,
  maxRounds: settings.maxRounds,
  server: settings.server,
});
const expected = `Done after ${settings.roundsPerTurn - 1} rounds.`;
const result = await measureWarm(settings, async (conversationId) => {
  const reply = await agent.ask(conversationId, 'Add up a few numbers.');
  if (reply !== expected) throw new Error(`the AI SDK agent answered ${JSON.stringify(reply)}, expected ${JSON.stringify(expected)}`);
});
await report(result);
await agent.close();
process.exit(0);
