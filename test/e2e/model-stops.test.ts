/**
 * A model that stops for a reason its text alone does not show says so in the turn's stop reason:
 * an answer cut at its output limit (`finish_reason: "length"`) is `max_tokens`, one withheld by a
 * content filter (`content_filter`) is `content_filtered`; /v1 passes them on as OpenAI's
 * `length` and `content_filter`. An ordinary answer stays `completed`.
 */
import { describe, expect, it } from 'vitest';
import { demoServerYml, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { textReply } from '../support/scripted-openai-server.ts';

/** A text reply as a provider sends it when it stopped for `finishReason`. */
function endedWith(text: string, finishReason: string): Record<string, unknown> {
  const reply = textReply(text) as { choices: Array<Record<string, unknown>> };
  return { ...reply, choices: [{ ...reply.choices[0], finish_reason: finishReason }] };
}

describe('model stop reasons through npm start', () => {
  const servers = serversPerTest();

  it.each([
    ['length', 'max_tokens', 'length'],
    ['content_filter', 'content_filtered', 'content_filter'],
    ['stop', 'completed', 'stop'],
  ])('a reply that ended with finish_reason %s ends the turn %s, and /v1 says %s', async (finishReason, stopReason, v1FinishReason) => {
    const model = await servers.model([endedWith('Once upon a time', finishReason), endedWith('Once upon a time', finishReason)]);
    const { server } = await servers.local(demoServerYml(), model);

    const native = await postJson(`${server.url}/conversations`, { message: 'Tell me a story' });
    const v1 = await postJson(`${server.url}/v1/chat/completions`, { model: 'mcp-agent', messages: [{ role: 'user', content: 'Tell me a story' }] });

    expect(native.status).toBe(201);
    expect(native.body).toMatchObject({ stopReason, reply: 'Once upon a time', rounds: 1 });
    expect(v1.body.choices[0]).toMatchObject({ finish_reason: v1FinishReason, message: { content: 'Once upon a time' } });
    expect(v1.body.mcp_agent).toMatchObject({ stopReason });
  });
});
