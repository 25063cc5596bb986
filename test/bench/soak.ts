/**
 * `npm run bench:soak` (node --expose-gc test/bench/soak.ts [--turns 10000] [--conversations 10]
 * [--turns-per-conversation 20] [--turn-timeout-seconds 10]): does the local set-up stay flat in
 * memory over many turns?
 *
 * Drives the real DynamoDB conversation store through the agent, on dynalite running in this
 * process with its data in a temporary folder, as `npm start` runs it. The model answers instantly
 * from a script and the tools are fakes, so nearly all the work is the store's: per turn one Query,
 * one conditional Put and one conditional Update. Conversations run side by side; each gets a
 * fresh id after a number of turns, so the table keeps growing as a real one does.
 *
 * The turn time limit is 10 s here rather than agent.yml's 300 s. Every model call, tool call and
 * store write clears its own time limit when it ends (lib/core/deadline.ts); while they used
 * `AbortSignal.timeout`, each held a timer (a few KB with its signal) until the limit passed, which
 * at this pace (100 to 200 turns/s) was 30,000 to 60,000 turns' worth at 300 s.
 * `--turn-timeout-seconds 300` shows whether anything still outlives its call.
 *
 * Prints the process's RSS (after a full GC) every 1,000 turns, and its growth since the 500th
 * turn: the first turns warm up the JIT, the SDK and dynalite, so growth is counted from there.
 * Sets exit code 1 when RSS grew by more than 100 MB after that point.
 */
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createAgent } from '../../lib/create-agent.ts';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ModelClient } from '../../lib/core/ports/model.ts';
import { ensureTable, startDynalite } from '../../lib/local/dynalite.ts';
import { textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { createLocalClient, createLocalDynamo } from '../support/dynalite.ts';
import { testGateway } from '../support/agent-fixture.ts';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '10000' },
    conversations: { type: 'string', default: '10' },
    'turns-per-conversation': { type: 'string', default: '20' },
    'turn-timeout-seconds': { type: 'string', default: '10' },
  },
});
const totalTurns = Number(values.turns);
const parallelConversations = Number(values.conversations);
const turnsPerConversation = Number(values['turns-per-conversation']);
const turnTimeoutSeconds = Number(values['turn-timeout-seconds']);

const BASELINE_TURNS = 500;
const REPORT_EVERY = 1000;
const ALLOWED_GROWTH_MB = 100;

/** Always a tool call first, then the answer: two rounds per turn, whatever the history. */
const instantModel: ModelClient = {
  async complete(request) {
    const last = request.messages.at(-1);
    return last?.role === 'tool'
      ? textReply('上海今天晴，22°C。')
      : toolCallsReply([{ id: `call_${request.messages.length}`, name: 'getWeather', arguments: { city: '上海' } }]);
  },
};

const megabytes = (bytes: number) => bytes / 1024 / 1024;

function sample(turns: number) {
  global.gc?.();
  const memory = process.memoryUsage();
  return { turns, rss: megabytes(memory.rss), heapUsed: megabytes(memory.heapUsed), external: megabytes(memory.external) };
}

if (!global.gc) process.stderr.write('Run with node --expose-gc for figures taken after a full GC.\n');

const folder = await mkdtemp(join(tmpdir(), 'soak-dynalite-'));
const dynamo = await startDynalite({ path: folder });
const client = createLocalClient(dynamo.endpoint);
const tableName = 'soak-conversations';
await ensureTable(client, tableName);

const config = parseConfig(`{history: {maxTokens: 4000}, turn: {timeoutSeconds: ${turnTimeoutSeconds}}}`, { source: 'soak.yml', environment: {} });
const store = createDynamoConversationStore({ client: createLocalDynamo(dynamo.endpoint), tableName, ttlDays: 1 });
const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model: instantModel, gateway: testGateway(), store, logger: silentLogger });

const samples: ReturnType<typeof sample>[] = [];
let baseline: ReturnType<typeof sample> | undefined;
let begun = 0;
let completed = 0;
let nextConversation = 0;
const started = performance.now();

// Each worker is one client: turns of a conversation one after another, as the store requires.
// The sample is taken between turns; the other workers' turns in flight are part of the picture.
async function worker() {
  while (begun < totalTurns) {
    const conversationId = `soak-${nextConversation++}`;
    for (let turn = 0; turn < turnsPerConversation && begun < totalTurns; turn++) {
      begun += 1;
      await agent.ask({ conversationId, message: '上海天气怎么样？' });
      completed += 1;
      if (completed === BASELINE_TURNS) baseline = sample(completed);
      if (completed % REPORT_EVERY === 0) samples.push(sample(completed));
    }
  }
}
await Promise.all(Array.from({ length: parallelConversations }, worker));
const seconds = (performance.now() - started) / 1000;

await agent.close();
client.destroy();
await dynamo.close();
await rm(folder, { recursive: true, force: true });

const start = baseline ?? samples[0];
if (!start) throw new Error(`Ran only ${completed} turns: too few to measure.`);
console.table(
  [start, ...samples].map((row) => ({
    turns: row.turns,
    'RSS MB': row.rss.toFixed(0),
    'heap used MB': row.heapUsed.toFixed(0),
    'external MB': row.external.toFixed(0),
    [`RSS since turn ${start.turns}`]: `${row.rss >= start.rss ? '+' : ''}${(row.rss - start.rss).toFixed(0)} MB`,
  })),
);
const largestGrowth = Math.max(...samples.map((row) => row.rss - start.rss));
const within = largestGrowth <= ALLOWED_GROWTH_MB;
console.log(
  `${completed} turns in ${seconds.toFixed(0)} s (${Math.round(completed / seconds)} turns/s); ` +
    `largest RSS growth since turn ${start.turns}: ${largestGrowth.toFixed(0)} MB ` +
    `(${within ? 'within' : 'OVER'} the ${ALLOWED_GROWTH_MB} MB allowed)`,
);
if (!within) process.exitCode = 1;
