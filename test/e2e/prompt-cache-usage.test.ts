/**
 * OpenAI-compatible providers count cached prompt tokens inside `prompt_tokens` and say how many in
 * `prompt_tokens_details.cached_tokens`: the turn's usage reports them as cacheReadTokens, summed
 * over its rounds, and reports nothing extra when no token came from the cache.
 */
import { describe, expect, it } from 'vitest';
import { demoServerYml, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';

/** A reply whose usage says `cached` of its `prompt` tokens came from the prompt cache. */
function withCachedTokens(reply: Record<string, unknown>, prompt: number, cached: number): Record<string, unknown> {
  return { ...reply, usage: { prompt_tokens: prompt, completion_tokens: 10, total_tokens: prompt + 10, prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 } } };
}

describe('prompt cache usage through npm start', () => {
  const servers = serversPerTest();

  it('sums the cached prompt tokens of every round as cacheReadTokens', async () => {
    const model = await servers.model([
      withCachedTokens(toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]), 1200, 1024),
      withCachedTokens(textReply('上海多云。'), 1300, 1152),
    ]);
    const { server } = await servers.local(demoServerYml(), model);

    const turn = await postJson(`${server.url}/conversations`, { message: '上海天气怎么样？' });

    expect(turn.body.usage).toMatchObject({ promptTokens: 2500, completionTokens: 20, cacheReadTokens: 2176 });
  });

  it('reports no cache share when the provider read nothing from its cache', async () => {
    const model = await servers.model([withCachedTokens(textReply('Hello.'), 200, 0)]);
    const { server } = await servers.local(demoServerYml(), model);

    const turn = await postJson(`${server.url}/conversations`, { message: 'Hi' });

    expect(turn.body.usage).toMatchObject({ promptTokens: 200, completionTokens: 10 });
    expect(turn.body.usage).not.toHaveProperty('cacheReadTokens');
  });
});
