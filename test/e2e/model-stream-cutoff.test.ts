/**
 * A model stream that closes cleanly with neither a finish_reason nor `[DONE]` (a proxy that hangs
 * up mid-reply) through npm start: a cut-off reply, so a failure, never stored as an answer. It is
 * retried only when no text had reached the client yet.
 */
import { describe, expect, it } from 'vitest';
import { historyViolations } from '../../lib/core/history.ts';
import { demoServerYml, serversPerTest } from '../support/configured-local-server.ts';
import { eventNames, postForEvents } from '../support/sse-client.ts';
import { completionChunks, textReply, toolCallsReply } from '../support/scripted-openai-server.ts';

const WHOLE_ANSWER = 'The answer is forty-two.';
/** The answer's role chunk and first two pieces ("The answer", " is forty"), then the connection closes. */
const cutOff = (text: string) => ({ sse: completionChunks(textReply(text)).slice(0, 3), ending: 'end' as const });
const YML = `model: { maxRetries: 2 }\n${demoServerYml()}`;

describe('a model stream cut off without finish_reason or [DONE], through npm start', () => {
  const servers = serversPerTest();

  it('after text reached the client: an error event, not retried, and no half answer stored', async () => {
    const model = await servers.model([toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]), cutOff(WHOLE_ANSWER), textReply('never asked')]);
    const { server } = await servers.local(YML, model);

    const exchange = await postForEvents(`${server.url}/conversations/cut-after-delta/messages`, { body: { message: 'What is the answer?' } });

    const seen = exchange.events.filter((event) => event.event === 'text-delta').map((event) => (event.data as { text: string }).text).join('');
    expect(seen.length).toBeGreaterThan(0);
    expect(WHOLE_ANSWER.startsWith(seen) && seen !== WHOLE_ANSWER).toBe(true);
    // Tools ran, so the turn is stored: its stream ends with turn-end, the failure under `error`.
    expect(eventNames(exchange).filter((name) => name !== 'text-delta')).toEqual(['round-start', 'tool-call', 'tool-result', 'round-start', 'turn-end']);
    expect(exchange.events.at(-1)!.data).toMatchObject({ stopReason: 'error', error: { code: 'model_unavailable', message: expect.stringMatching(/cut off/) } });
    // One request per round: the cut-off answer was not asked for again.
    expect(model.requests).toHaveLength(2);
    const stored = (await (await fetch(`${server.url}/conversations/cut-after-delta`)).json()) as { turns: Array<{ stopReason: string; messages: Array<{ role: string; content?: string | null }> }> };
    expect(stored.turns).toHaveLength(1);
    expect(stored.turns[0]!.stopReason).toBe('error');
    expect(stored.turns[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.stringify(stored)).not.toContain('forty');
    expect(historyViolations(stored.turns[0]!.messages as never)).toEqual([]);
  });

  it('after text reached the client, with no tool run: the error, and nothing stored', async () => {
    const model = await servers.model([cutOff(WHOLE_ANSWER), textReply('never asked')]);
    const { server } = await servers.local(YML, model);

    const exchange = await postForEvents(`${server.url}/conversations/cut-nothing-ran/messages`, { body: { message: 'What is the answer?' } });

    expect(exchange.events.at(-1)).toMatchObject({ event: 'error', data: { error: { code: 'model_unavailable' }, status: 502 } });
    expect(model.requests).toHaveLength(1);
    expect((await fetch(`${server.url}/conversations/cut-nothing-ran`)).status).toBe(404);
  });

  it('before any text: retried, and the client sees only the whole answer', async () => {
    const beforeAnyText = { sse: completionChunks(textReply('never seen')).slice(0, 1), ending: 'end' as const };
    const model = await servers.model([beforeAnyText, textReply(WHOLE_ANSWER)]);
    const { server } = await servers.local(YML, model);

    const exchange = await postForEvents(`${server.url}/conversations/cut-before-delta/messages`, { body: { message: 'What is the answer?' } });

    expect(eventNames(exchange).filter((name) => name !== 'text-delta')).toEqual(['round-start', 'turn-end']);
    expect(exchange.events.at(-1)!.data).toMatchObject({ reply: WHOLE_ANSWER, stopReason: 'completed', rounds: 1 });
    expect(model.requests).toHaveLength(2);
  });
});
