/**
 * The reflection strategies through npm start (docs/reflection.md), with a scripted model that
 * answers each request by what it is for and checks what it was sent: Self-Refine's critique and
 * revision, Reflexion's reflection in front of the retry and its lessons in a later conversation,
 * self-consistency's samples and pick, and the bounds of a model that never stops critiquing.
 */
import { describe, expect, it } from 'vitest';
import { VERDICT_PROTOCOL } from '../../lib/agent/strategies/reflection/verdict.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { cancelOrders, weatherFor } from '../../lib/demo/tools.ts';
import { demoServerYml, getJson, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { eventNames, postForEvents, type SseExchange } from '../support/sse-client.ts';
import { textReply, toolCallsReply, type ChatRequestBody } from '../support/scripted-openai-server.ts';
import { answered, completionBodies, questionOf, toolAnswers, toolNames, wireMessages, wireViolations } from '../support/wire-requests.ts';

/** The demo server's tools, in the order it lists them. */
const DEMO_TOOLS = ['foo', 'getWeather', 'getNews', 'batchCancelOrdersByOrderNo'];

/** What a request is for, told by its last user message (the strategy's own calls end with their prompt). */
function purposeOf(body: ChatRequestBody): 'critique' | 'revision' | 'reflection' | 'judge' | 'answer' {
  const last = questionOf(body);
  if (last.startsWith('Review the answer you just gave')) return 'critique';
  if (last.startsWith('Write your answer again')) return 'revision';
  if (last.startsWith('Your attempt above did not succeed')) return 'reflection';
  if (last.endsWith('Reply with the number of the best answer only.')) return 'judge';
  return 'answer';
}

/** The assistant message just before the strategy's prompt: the answer a critique or revision is about. */
const answerUnderReview = (body: ChatRequestBody) => {
  const messages = wireMessages(body);
  const asked = messages.findIndex((message) => message.role === 'user' && message.content!.startsWith('Review the answer you just gave'));
  return messages[asked - 1];
};

const reflectionEvents = (exchange: SseExchange) => exchange.events.filter((event) => event.event === 'reflection').map((event) => event.data as any);
const streamedText = (exchange: SseExchange) => exchange.events.filter((event) => event.event === 'text-delta').map((event) => (event.data as any).text).join('');
const turnEndOf = (exchange: SseExchange) => exchange.events.find((event) => event.event === 'turn-end')?.data as any;

describe('reflection strategies through npm start', () => {
  const servers = serversPerTest();

  describe('Self-Refine (reflection.selfRefine)', () => {
    it('critiques the answer against the question and the tool results, revises it, stops when the critique finds nothing, and keeps only the final answer', async () => {
      // Prepare: the answer, a critique that asks for more, the revision, a critique that is content.
      const QUESTION = '上海天气怎么样？';
      const DRAFT = '上海：晴。';
      const REVISED = `上海：${weatherFor('上海').condition}，${weatherFor('上海').temperatureC}°C。`;
      const CRITIQUE = 'The answer leaves out the temperature the tool returned.\nVERDICT: REVISE';
      const model = await servers.model((body) => {
        switch (purposeOf(body)) {
          case 'answer':
            return answered(body, 'getWeather') ? textReply(DRAFT) : toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]);
          case 'critique':
            return textReply(answerUnderReview(body)?.content === DRAFT ? CRITIQUE : 'Everything is backed by the tool result.\nVERDICT: OK');
          case 'revision':
            return textReply(REVISED);
        }
      });
      const local = await servers.local(`reflection: { selfRefine: true, maxRevisions: 2 }\nmodel: { maxRetries: 0 }\n${demoServerYml()}`, model);

      // Act
      const exchange = await postForEvents(`${local.server.url}/conversations/refined/messages`, { body: { message: QUESTION } });

      // Assess: the reply is the revision; rounds = answer (2) + critique + revision + critique.
      const turnEnd = turnEndOf(exchange);
      expect(turnEnd, JSON.stringify(exchange.events)).toMatchObject({ stopReason: 'completed', reply: REVISED, rounds: 5, toolCalls: [{ id: 'call_weather', name: 'getWeather', ok: true }] });
      const bodies = completionBodies(model);
      expect(bodies.map(purposeOf)).toEqual(['answer', 'answer', 'critique', 'revision', 'critique']);
      for (const body of bodies) expect(wireViolations(body)).toEqual([]);
      // The critique's input: the question, the tool call and its result, the answer, the critique prompt; no tools.
      const [, , critique, revision, secondCritique] = bodies;
      expect(wireMessages(critique!).slice(1)).toEqual([
        { role: 'user', content: QUESTION },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_weather', type: 'function', function: { name: 'getWeather', arguments: JSON.stringify({ city: '上海' }) } }] },
        { role: 'tool', tool_call_id: 'call_weather', name: 'getWeather', content: JSON.stringify(weatherFor('上海')) },
        { role: 'assistant', content: DRAFT },
        { role: 'user', content: expect.stringMatching(/^Review the answer you just gave/) },
      ]);
      expect(questionOf(critique!).endsWith(VERDICT_PROTOCOL)).toBe(true);
      expect(critique!.tools).toBeUndefined();
      // The revision sees the critique as its own words, then the revise prompt.
      expect(wireMessages(revision!).slice(-3)).toEqual([
        expect.objectContaining({ role: 'user', content: expect.stringMatching(/^Review the answer/) }),
        { role: 'assistant', content: CRITIQUE },
        { role: 'user', content: expect.stringMatching(/^Write your answer again/) },
      ]);
      expect(answerUnderReview(secondCritique!)?.content).toBe(REVISED);

      // Assess: the stream. The draft never streams; the answer streams once, as the reply.
      expect(reflectionEvents(exchange)).toEqual([
        { round: 3, kind: 'critique', revision: 0, verdict: 'revise', text: CRITIQUE },
        { round: 4, kind: 'revision', revision: 1, text: REVISED },
        { round: 5, kind: 'critique', revision: 1, verdict: 'ok', text: 'Everything is backed by the tool result.\nVERDICT: OK' },
        { round: 5, kind: 'end', reason: 'no_changes' },
      ]);
      expect(streamedText(exchange)).toBe(REVISED);
      expect(eventNames(exchange).at(-1)).toBe('turn-end');
      expect(turnEnd.reflection.map((step: any) => step.kind)).toEqual(['critique', 'revision', 'critique', 'end']);

      // Assess: the stored turn holds the question, the tool round and the final answer, no critique.
      const stored = (await getJson(`${local.server.url}/conversations/refined`)).body.turns[0].messages;
      expect(stored).toEqual([
        { role: 'user', content: QUESTION },
        expect.objectContaining({ role: 'assistant', toolCalls: [expect.objectContaining({ id: 'call_weather' })] }),
        expect.objectContaining({ role: 'tool', toolCallId: 'call_weather' }),
        { role: 'assistant', content: REVISED, toolCalls: [] },
      ]);
      expect(historyViolations(stored)).toEqual([]);
      // The critiques are in the turn's trace: every model call, as sent and as answered.
      const trace = (await getJson(`${local.server.url}/conversations/refined/turns/1/trace`)).body;
      expect(trace.rounds.map((round: any) => round.response?.content)).toEqual([null, DRAFT, CRITIQUE, REVISED, 'Everything is backed by the tool result.\nVERDICT: OK']);
    });

    it.each([
      { bound: 'maxRevisions', yml: 'maxRounds: 8\nreflection: { selfRefine: true, maxRevisions: 2 }', calls: ['answer', 'critique', 'revision', 'critique', 'revision'], reply: 'revision 2', end: 'max_revisions' },
      { bound: 'maxRounds', yml: 'maxRounds: 4\nreflection: { selfRefine: true, maxRevisions: 5 }', calls: ['answer', 'critique', 'revision', 'critique'], reply: 'revision 1', end: 'max_rounds' },
    ])('is bounded by $bound when the critique never finds the answer good enough', async ({ yml, calls, reply, end }) => {
      let revisions = 0;
      const model = await servers.model((body) => {
        switch (purposeOf(body)) {
          case 'answer':
            return textReply('first answer');
          case 'critique':
            return textReply('It could always be better.\nVERDICT: REVISE');
          case 'revision':
            return textReply(`revision ${++revisions}`);
        }
      });
      const local = await servers.local(`${yml}\nmodel: { maxRetries: 0 }\n${demoServerYml()}`, model);

      const exchange = await postForEvents(`${local.server.url}/conversations/never-content/messages`, { body: { message: 'Explain the weather.' } });

      expect(completionBodies(model).map(purposeOf)).toEqual(calls);
      // An answer there is: the turn completed, its reply the last revision, and the events say why refining stopped.
      expect(turnEndOf(exchange)).toMatchObject({ stopReason: 'completed', reply, rounds: calls.length });
      expect(reflectionEvents(exchange).at(-1)).toMatchObject({ kind: 'end', reason: end });
      expect(streamedText(exchange)).toBe(reply);
      const stored = (await getJson(`${local.server.url}/conversations/never-content`)).body.turns[0].messages;
      expect(stored).toEqual([{ role: 'user', content: 'Explain the weather.' }, { role: 'assistant', content: reply, toolCalls: [] }]);
    });
  });
});
