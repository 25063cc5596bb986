/** A warm child process running the hand-written baseline loop (baseline-loop.ts). */
import { createBaselineAgent } from './baseline-loop.ts';
import { measureWarm, readSettings, report } from './warm-measure.ts';

const settings = readSettings();
const agent = await createBaselineAgent({
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
  if (reply !== expected) throw new Error(`the baseline answered ${JSON.stringify(reply)}, expected ${JSON.stringify(expected)}`);
});
await report(result);
await agent.close();
process.exit(0);
