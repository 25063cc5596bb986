/**
 * `node test/bench/trace-book.ts`: the CPU the turn trace's own code takes for a turn of 5 rounds
 * of 2 tool calls, then the answer (the shape of `npm run bench`'s 5x2), driven through the trace
 * extension alone: no model, no tools, no store. It isolates what `npm run bench` cannot separate
 * from its noise (the trace is a few percent of a warm round there). `--tools N` offers N tools
 * (the bench's `add` and N - 1 with schemas of a typical business API; default 1). Each turn
 * offers new definitions around the same schema objects, as the MCP gateway does.
 */
import { parseArgs } from 'node:util';
import type { RunningCall, TurnContext } from '../../lib/agent/extension-api/extension.ts';
import { traceExtension } from '../../lib/extensions/trace/extension.ts';
import type { HistoryMessage, ToolCall } from '../../lib/core/messages.ts';
import type { ModelReply } from '../../lib/core/ports/model.ts';
import type { ToolDefinition, ToolOutput } from '../../lib/core/ports/tools.ts';

const WARM_UP_TURNS = 3_000;
const MEASURED_TURNS = 20_000;

const extension = traceExtension({ enabled: true, maxBytes: 262_144, contents: 'full' });
const { values } = parseArgs({ options: { tools: { type: 'string', default: '1' } } });
const tools: ToolDefinition[] = [{ name: 'add', description: 'Adds two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }];
for (let index = 1; index < Number(values.tools); index++) {
  tools.push({
    name: `orders_${index}`,
    description: `Changes order ${index}'s lines for the customer and warehouse given.`,
    parameters: {
      type: 'object',
      properties: {
        orderNo: { type: 'string', description: 'The order number, as printed on the invoice.' },
        customer: { type: 'object', properties: { id: { type: 'string' }, region: { type: 'string', enum: ['eu', 'us', 'apac'] } }, required: ['id'] },
        items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } } } },
        dryRun: { type: 'boolean', description: 'Only check, change nothing.' },
      },
      required: ['orderNo'],
    },
  });
}

async function oneTurn(index: number): Promise<void> {
  // As run-loop.ts sends them: the turn's messages appended to, a new system message every round.
  const messages: HistoryMessage[] = [{ role: 'user', content: `question ${index}: what are 1 + 2 and 3 + 4?` }];
  // The parts of a turn's context the trace reads (its messages are the turn's own, as the draft's).
  const turn = { turn: 1, state: {}, scratch: {}, history: [], messages } as unknown as TurnContext;
  // New definitions around the same schemas, as the gateway lists them for each turn.
  const offered = tools.map((tool) => ({ ...tool }));
  await extension.turnStart!(turn);
  for (let round = 1; round <= 6; round++) {
    const calls: ToolCall[] = round <= 5 ? [{ id: `call_${round}_1`, name: 'add', arguments: '{"a":1,"b":2}' }, { id: `call_${round}_2`, name: 'add', arguments: '{"a":3,"b":4}' }] : [];
    const reply: ModelReply = { content: round <= 5 ? null : 'They are 3 and 7.', toolCalls: calls, usage: { promptTokens: 100, completionTokens: 10 } };
    await extension.aroundModelCall!({ messages: [{ role: 'system', content: 'You are a helpful assistant.' }, ...messages], tools: offered, timeoutMs: 1_000 }, async () => reply, turn);
    if (calls.length === 0) continue;
    messages.push({ role: 'assistant', content: null, toolCalls: calls });
    for (const call of calls) {
      await extension.aroundToolCall!({ id: call.id, name: call.name, arguments: {} } as RunningCall, async () => ({ ok: true, text: '3' }) as ToolOutput, turn);
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: '3' });
    }
  }
  // The result as the trace reads it: the calls the policy refused are among its toolCalls (none here).
  await extension.turnEnd!({ toolCalls: [] } as never, turn);
}

for (let index = 0; index < WARM_UP_TURNS; index++) await oneTurn(index);
const before = process.cpuUsage();
for (let index = 0; index < MEASURED_TURNS; index++) await oneTurn(index);
const used = process.cpuUsage(before);
console.log(`the trace's CPU per turn of 5 rounds of 2 calls, ${tools.length} tool${tools.length === 1 ? '' : 's'} offered: ${((used.user + used.system) / MEASURED_TURNS).toFixed(1)} µs`);
