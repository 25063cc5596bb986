/**
 * `node test/bench/stream.ts`: what streaming adds to a model call on the service's side. First the
 * pure part, every recorded stream's chunks through the accumulator, the delta splitter and the
 * normalizer (CPU per chunk); then a long reply (about 2,400 chunks: text one character each, and a
 * call's arguments) through the real SDK over HTTP, streamed and unstreamed, each body written at
 * once by a plain server so that only the client's side is measured (wall time per call).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAIClient } from '../../lib/adapters/openai/client.ts';
import { createOpenAIModel } from '../../lib/adapters/openai/model.ts';
import { normalizeCompletion } from '../../lib/adapters/openai/normalize.ts';
import { createCompletionAccumulator } from '../../lib/adapters/openai/stream-accumulator.ts';
import { createDeltaSplitter } from '../../lib/adapters/openai/stream-deltas.ts';
import { streamedAsOpenAI } from '../support/scripted-openai-server.ts';
import { streamedRecordings } from '../support/streamed-recordings.ts';

/** The recordings that are replies: no error event, and not a call that names no tool beside no text (LiteLLM's index -1). */
const recordings = streamedRecordings().filter(({ chunks }) => !chunks.some((chunk) => 'error' in chunk) && isReply(chunks));
const ROUNDS = 2_000;
let chunkCount = 0;
const before = process.cpuUsage();
for (let round = 0; round < ROUNDS; round += 1) {
  for (const { chunks } of recordings) {
    const accumulator = createCompletionAccumulator();
    const splitter = createDeltaSplitter({ holdTextToolCalls: false });
    for (const chunk of chunks) for (const piece of accumulator.add(chunk)) splitter.push(piece);
    splitter.finish(normalizeCompletion(accumulator.completion()).content);
    chunkCount += chunks.length;
  }
}
const cpu = process.cpuUsage(before);
console.table([{ recordings: recordings.length, rounds: ROUNDS, chunks: chunkCount, 'CPU µs per chunk': ((cpu.user + cpu.system) / chunkCount).toFixed(2) }]);

const text = '上海今天多云，气温二十二度，湿度百分之四十五。'.repeat(100);
const body = {
  choices: [{ message: { role: 'assistant', content: text, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'getWeather', arguments: JSON.stringify({ city: '上海'.repeat(50) }) } }] }, finish_reason: 'tool_calls' }],
  usage: { prompt_tokens: 100, completion_tokens: 2_000 },
};
const REPEATS = 20;
const streamed = streamedAsOpenAI(body, { pieceLength: 1 });
const sseText = [...streamed.sse.map((event) => `data: ${JSON.stringify(event)}\n\n`), 'data: [DONE]\n\n'].join('');
const server = createServer((incoming, outgoing) => {
  let text = '';
  incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
  incoming.on('end', () => {
    const wantsStream = (JSON.parse(text) as { stream?: boolean }).stream === true;
    outgoing.writeHead(200, { 'content-type': wantsStream ? 'text/event-stream' : 'application/json' });
    outgoing.end(wantsStream ? sseText : JSON.stringify(body));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
const client = createOpenAIClient({ baseURL, apiKey: '', maxRetries: 0, timeoutMs: 30_000 });
const model = createOpenAIModel({ client, model: 'bench', temperature: 0 });
const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };
const time = async (label: string, run: () => Promise<unknown>) => {
  const started = performance.now();
  for (let repeat = 0; repeat < REPEATS; repeat += 1) await run();
  return { call: label, 'ms per call': ((performance.now() - started) / REPEATS).toFixed(1) };
};
let deltas = 0;
console.table([
  await time('unstreamed (one JSON body)', () => model.complete(request)),
  await time(`streamed (${streamed.sse.length} events)`, () => model.complete({ ...request, onDelta: () => void (deltas += 1) })),
]);
console.log(`deltas handed out: ${deltas / REPEATS} per call`);
server.close();

function isReply(chunks: Array<Record<string, unknown>>): boolean {
  const accumulator = createCompletionAccumulator();
  for (const chunk of chunks) accumulator.add(chunk);
  try {
    normalizeCompletion(accumulator.completion());
    return true;
  } catch {
    return false;
  }
}
