/**
 * Progress of long MCP tool calls through `npm start`: the gateway asks for progress (a
 * progressToken), each notifications/progress of server-everything's trigger-long-running-operation
 * reaches an SSE client as a `tool-progress` event, and each one starts the call's timeout
 * (tools.callTimeoutSeconds) again, so a call that reports progress runs past it, up to
 * tools.maxCallSeconds in all.
 */
import { describe, expect, it } from 'vitest';
import { serversPerTest } from '../support/configured-local-server.ts';
import { EVERYTHING_ENTRY } from '../support/mcp-servers.ts';
import { eventNames, postForEvents } from '../support/sse-client.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';

const agentYml = (tools: string) => [
  `tools: { ${tools} }`,
  'mcpServers:',
  `  everything: { command: node, args: [${JSON.stringify(EVERYTHING_ENTRY)}, stdio] }`,
].join('\n');

describe('progress of a long MCP tool call (npm start)', () => {
  const servers = serversPerTest();

  it('streams each progress report as tool-progress, and lets progress keep the call alive past its timeout', async () => {
    // Prepare: a 3 s timeout, and a tool that takes 8 s, reporting progress every second.
    const model = await servers.model([
      toolCallsReply([{ id: 'call_long', name: 'trigger-long-running-operation', arguments: { duration: 8, steps: 8 } }]),
      textReply('Done.'),
    ]);
    const { server } = await servers.local(agentYml('callTimeoutSeconds: 3, maxCallSeconds: 60'), model);

    // Act
    const exchange = await postForEvents(`${server.url}/conversations/progress-1/messages`, { body: { message: 'Run the long operation' } });

    // Assess
    expect(exchange.status).toBe(200);
    const names = eventNames(exchange);
    const progress = exchange.events.filter((event) => event.event === 'tool-progress').map((event) => event.data);
    // The last report may be lost: the SDK client handles a notification a tick later than the
    // result that follows it, and by then the call has ended.
    expect(progress.length).toBeGreaterThanOrEqual(7);
    expect(progress).toEqual(progress.map((_, index) => ({ round: 1, id: 'call_long', name: 'trigger-long-running-operation', progress: index + 1, total: 8 })));
    expect(names.indexOf('tool-progress')).toBeGreaterThan(names.indexOf('tool-call'));
    expect(names.lastIndexOf('tool-progress')).toBeLessThan(names.indexOf('tool-result'));
    const result = exchange.events.find((event) => event.event === 'tool-result')!.data as { ok: boolean; content: string };
    expect(result).toMatchObject({ ok: true, content: expect.stringContaining('Long running operation completed') });
  }, 120_000);

  it('stops a call at tools.maxCallSeconds however much progress it reports', async () => {
    const model = await servers.model([
      toolCallsReply([{ id: 'call_long', name: 'trigger-long-running-operation', arguments: { duration: 60, steps: 60 } }]),
      textReply('It took too long.'),
    ]);
    const { server } = await servers.local(agentYml('callTimeoutSeconds: 3, maxCallSeconds: 6'), model);

    const exchange = await postForEvents(`${server.url}/conversations/progress-2/messages`, { body: { message: 'Run the long operation' } });

    const progress = exchange.events.filter((event) => event.event === 'tool-progress');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const result = exchange.events.find((event) => event.event === 'tool-result')!.data as { ok: boolean; durationMs: number };
    expect(result.ok).toBe(false);
    // The limit's timer runs on the event loop's millisecond clock, up to 1 ms behind the one the call is timed with.
    expect(result.durationMs).toBeGreaterThanOrEqual(5_999);
    expect(result.durationMs).toBeLessThan(30_000);
  }, 120_000);
});
