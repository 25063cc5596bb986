/**
 * A client that reconnects never runs a turn twice: the `eventsource` package (an EventSource that
 * POSTs through its `fetch` option, and reconnects by itself when a stream closes) against
 * `npm start`, with a tool that changes something and logs each call it starts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serversPerTest } from '../support/configured-local-server.ts';
import { postEventSource } from '../support/event-source-client.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const SLOW_TOOL_SERVER = fileURLToPath(new URL('../fixtures/slow-tool-server.ts', import.meta.url));
const TURN_EVENTS = ['round-start', 'text-delta', 'tool-call', 'tool-result', 'approval-required', 'turn-end', 'error'];

describe('an EventSource that reconnects (eventsource package, npm start)', () => {
  const servers = serversPerTest();
  // Each test's folder (its tool log, the data folder) is removed when the test finishes, after
  // serversPerTest's afterEach has stopped the servers that use it (temporaryFolder).
  let folder: string;

  /** agent.yml with the slow cancelling tool, each call it starts written to `log`. */
  const slowToolConfig = (log: string, toolMs: number) =>
    `mcpServers:\n  slow:\n    command: node\n    args: [${JSON.stringify(SLOW_TOOL_SERVER)}]\n    env: { SLOW_TOOL_LOG: ${JSON.stringify(log)}, SLOW_TOOL_MS: "${toolMs}" }\n`;
  const startedCalls = (log: string) => readFileSync(log, 'utf8').split('\n').filter(Boolean);

  it('gets 204 when it reconnects after turn-end, and stops: the turn, its tool and its model calls ran once', async () => {
    // Prepare: a second turn's worth of replies, which a re-run would take.
    folder = temporaryFolder('agent-sse-resume-');
    const log = join(folder, 'calls.log');
    const script = [toolCallsReply([{ id: 'call_cancel', name: 'slowCancel', arguments: { orderNo: 'ORD-1' } }]), textReply('ORD-1 已取消。')];
    const model = await servers.model([...script, ...script]);
    const { server } = await servers.local(slowToolConfig(log, 200), model);

    // Act: a new conversation (no id in the path), as an EventSource follows it.
    const client = postEventSource(`${server.url}/conversations`, { message: '取消订单 ORD-1' }, TURN_EVENTS);
    const closed = await client.closed;

    // Assess: one turn, then a reconnect that named its last event and was told 204.
    expect(client.events.map((event) => event.event).filter((name) => name !== 'text-delta')).toEqual(['round-start', 'tool-call', 'tool-result', 'round-start', 'turn-end']);
    const turnEnd = client.events.at(-1)!;
    const { conversationId } = turnEnd.data as { conversationId: string };
    expect(client.connections).toEqual([{ lastEventId: undefined, status: 200 }, { lastEventId: turnEnd.id, status: 204 }]);
    expect(closed.code).toBe(204);
    expect(turnEnd.id.startsWith(`${conversationId}:1:`)).toBe(true);
    expect(startedCalls(log)).toEqual(['started ORD-1']);
    expect(model.requests).toHaveLength(2);
    const stored = (await (await fetch(`${server.url}/conversations/${conversationId}`)).json()) as { turns: unknown[] };
    expect(stored.turns).toHaveLength(1);
  });

  it('resumes the same turn when the connection drops after a tool call: the rest of its events, the turn run once', async () => {
    // Prepare: a tool that takes long enough for the client to drop and come back while it runs.
    folder = temporaryFolder('agent-sse-resume-');
    const log = join(folder, 'calls.log');
    const script = [toolCallsReply([{ id: 'call_cancel', name: 'slowCancel', arguments: { orderNo: 'ORD-2' } }]), { status: 200, body: textReply('ORD-2 已取消。'), delayMs: 500 }];
    const model = await servers.model([...script, ...script]);
    const { server } = await servers.local(slowToolConfig(log, 3_000), model);

    // Act: drop the connection as soon as the tool call arrives.
    const client = postEventSource(`${server.url}/conversations/resumed-mid-turn/messages`, { message: '取消订单 ORD-2' }, TURN_EVENTS, (event) => {
      if (event.event === 'tool-call') client.drop();
    });
    const closed = await client.closed;

    // Assess: the first connection ended at the tool call; the second took the turn up after it.
    const names = (connection: number) => client.events.filter((event) => event.connection === connection && event.event !== 'text-delta').map((event) => event.event);
    expect(names(0)).toEqual(['round-start', 'tool-call']);
    expect(names(1)).toEqual(['tool-result', 'round-start', 'turn-end']);
    const toolCall = client.events.find((event) => event.event === 'tool-call')!;
    expect(client.connections[1]).toEqual({ lastEventId: toolCall.id, status: 200 });
    expect(client.events.find((event) => event.event === 'tool-result')!.data).toMatchObject({ round: 1, id: 'call_cancel', name: 'slowCancel', ok: true, content: expect.stringContaining('ORD-2') });
    const replayedText = client.events.filter((event) => event.connection === 1 && event.event === 'text-delta').map((event) => (event.data as { text: string }).text).join('');
    expect(replayedText).toBe('ORD-2 已取消。');
    const turnEnd = client.events.at(-1)!;
    expect(turnEnd.data).toMatchObject({ conversationId: 'resumed-mid-turn', turn: 1, reply: 'ORD-2 已取消。', stopReason: 'completed', toolCalls: [{ id: 'call_cancel', ok: true }] });
    // Then a reconnect after the end: 204, and the EventSource stops.
    expect(client.connections.slice(2)).toEqual([{ lastEventId: turnEnd.id, status: 204 }]);
    expect(closed.code).toBe(204);
    expect(startedCalls(log)).toEqual(['started ORD-2']);
    expect(model.requests).toHaveLength(2);
  });

  it('refuses a Last-Event-ID of another conversation, an unknown turn or a malformed one with a 4xx, and runs no turn', async () => {
    folder = temporaryFolder('agent-sse-resume-');
    const model = await servers.model([textReply('一。')]);
    const { server } = await servers.local(slowToolConfig(join(folder, 'calls.log'), 200), model);
    const first = await fetch(`${server.url}/conversations/known/messages`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ message: '一' }) });
    const endId = /id: (known:1:\S+:end)/.exec(await first.text())![1]!;
    const tag = endId.split(':')[2];

    const resume = (path: string, lastEventId: string) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'last-event-id': lastEventId }, body: JSON.stringify({ message: '再问一次' }) });
    const answers = await Promise.all([
      resume('/conversations/other/messages', endId),
      resume('/conversations/known/messages', `known:2:${tag}:round-1`),
      resume('/conversations', 'garbage'),
      resume('/conversations/known/messages', `known:1:AAAAAA:round-1`),
      resume('/conversations', endId),
    ]);

    expect(await Promise.all(answers.map(async (answer) => [answer.status, answer.status === 204 ? null : ((await answer.json()) as { error: { code: string } }).error.code]))).toEqual([
      [400, 'invalid_last_event_id'],
      [404, 'turn_not_found'],
      [400, 'invalid_last_event_id'],
      [404, 'turn_not_found'],
      [204, null],
    ]);
    expect(model.requests).toHaveLength(1);
  });
});
