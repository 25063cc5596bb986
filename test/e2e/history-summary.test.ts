/**
 * history.strategy summarize through npm start: the exact requests the model receives (the summary
 * request itself, and the summary before the kept turns), one summary call only when turns fall
 * out, the summary stored with the conversation and streamed, the invariant in every request.
 */
import { describe, expect, it } from 'vitest';
import { SUMMARY_ACKNOWLEDGED, summaryNote } from '../../lib/extensions/history-summary.ts';
import { DEFAULT_HISTORY_SUMMARY_PROMPT, DEFAULT_SYSTEM_PROMPT } from '../../lib/config/schema.ts';
import { estimateTokens } from '../../lib/core/history.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';
import { demoServerYml, getJson, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { postForEvents } from '../support/sse-client.ts';
import { textReply, toolCallsReply, type ChatRequestBody } from '../support/scripted-openai-server.ts';
import { answered, completionBodies, questionOf, systemPromptOf, wireMessages, wireViolations } from '../support/wire-requests.ts';

/** The kept turns get 150 estimated tokens (200 less the summary's 50). */
const AGENT_YML = `history: { maxTokens: 200, strategy: summarize, summary: { maxTokens: 50 } }\nmodel: { maxRetries: 0 }\n${demoServerYml()}`;

const QUESTIONS = [
  `What is the weather in Shanghai? ${'x'.repeat(40)}`,
  `Remember this long story: ${'y'.repeat(380)}`,
  'Thanks.',
  'OK.',
  `Another long story: ${'z'.repeat(380)}`,
  'Bye.',
];
const S1 = 'S1: the user asked about the weather in Shanghai (sunny).';
const S2 = 'S2: weather in Shanghai; a long story about y; thanks.';
const isSummaryRequest = (body: ChatRequestBody) => systemPromptOf(body) === DEFAULT_HISTORY_SUMMARY_PROMPT;

/** Replies chosen by what each request is: a summary request, or a turn's question. */
function reply(body: ChatRequestBody) {
  if (isSummaryRequest(body)) return textReply(String(wireMessages(body)[1]!.content).includes('### Turn 2') ? S2 : S1);
  const question = questionOf(body);
  if (question === QUESTIONS[0] && !answered(body, 'getWeather')) return toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]);
  return textReply(`Answer to: ${question.slice(0, 12)}`);
}

describe('history.strategy summarize through npm start', () => {
  const servers = serversPerTest();

  it('summarizes the turns that fall out, once each time, sends the summary before the kept turns, and keeps it with the conversation', async () => {
    // Prepare
    const model = await servers.model(reply);
    const local = await servers.local(AGENT_YML, model);
    const url = `${local.server.url}/conversations/long-talk`;
    const summaryCalls: number[] = [];
    const stored = async (): Promise<HistoryMessage[][]> => (await getJson(url)).body.turns.map((turn: { messages: HistoryMessage[] }) => turn.messages);
    const results: any[] = [];

    // Act: five turns as JSON, the sixth as events.
    for (const question of QUESTIONS.slice(0, 5)) {
      results.push((await postJson(`${url}/messages`, { message: question })).body);
      summaryCalls.push(completionBodies(model).filter(isSummaryRequest).length);
    }
    const sixth = await postForEvents(`${url}/messages`, { body: { message: QUESTIONS[5] } });
    summaryCalls.push(completionBodies(model).filter(isSummaryRequest).length);

    // Assess: the sizes this test is built on. The kept turns hold 150 tokens; after a summary,
    // the newest within 75 stay whole, or the newest alone when it is larger (a long turn is).
    const turns = await stored();
    const tokens = turns.map((messages) => estimateTokens(messages));
    expect(tokens[0]! + tokens[1]!).toBeGreaterThan(150);
    expect(tokens[1]!).toBeGreaterThan(75);
    expect(tokens[1]! + tokens[2]! + tokens[3]!).toBeLessThanOrEqual(150);
    expect(tokens[1]! + tokens[2]! + tokens[3]! + tokens[4]!).toBeGreaterThan(150);
    expect(tokens[4]!).toBeGreaterThan(75);

    // One summary call at turn 3 (turn 1 falls out), none at turns 4 and 5, one at turn 6 (turns 2 to 4 fall out).
    expect(summaryCalls).toEqual([0, 0, 1, 1, 1, 2]);

    // The first summary request: the summary prompt, turn 1 as text (its tool call and result), no tools.
    const bodies = completionBodies(model);
    const [first, second] = bodies.filter(isSummaryRequest);
    expect(first!.tools).toBeUndefined();
    expect(wireMessages(first!)).toHaveLength(2);
    const weather = turns[0]!.find((message) => message.role === 'tool')!.content;
    expect(wireMessages(first!)[1]).toEqual({
      role: 'user',
      content: `The summary so far: none yet.\n\nThe turns that follow it:\n\n### Turn 1\nUser: ${QUESTIONS[0]}\nAssistant called getWeather({"city":"上海"})\nResult of getWeather: ${weather}\nAssistant: Answer to: ${QUESTIONS[0]!.slice(0, 12)}\n\nWrite the summary of turns 1 to 1, in at most about 50 tokens.`,
    });
    // The refresh: the old summary, then turns 2 to 4.
    expect(wireMessages(second!)[1]!.content).toBe(
      `The summary so far (turns 1 to 1):\n${S1}\n\nThe turns that follow it:\n\n### Turn 2\nUser: ${QUESTIONS[1]}\nAssistant: Answer to: Remember thi\n\n### Turn 3\nUser: Thanks.\nAssistant: Answer to: Thanks.\n\n### Turn 4\nUser: OK.\nAssistant: Answer to: OK.\n\nWrite the summary of turns 1 to 4, in at most about 50 tokens.`,
    );

    // Turn 3's request: the system prompt, the summary and its reply, turn 2 whole, the question.
    const turnRequests = bodies.filter((body) => !isSummaryRequest(body));
    const third = turnRequests.find((body) => questionOf(body) === QUESTIONS[2])!;
    expect(systemPromptOf(third)).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(wireMessages(third).slice(1)).toEqual([
      { role: 'user', content: summaryNote({ text: S1, throughTurn: 1 }) },
      { role: 'assistant', content: SUMMARY_ACKNOWLEDGED },
      { role: 'user', content: QUESTIONS[1] },
      { role: 'assistant', content: 'Answer to: Remember thi' },
      { role: 'user', content: QUESTIONS[2] },
    ]);
    // Turn 5's: the summary, then turns 2 to 4 whole. Turn 6's: the new summary, then turn 5.
    const fifth = turnRequests.find((body) => questionOf(body) === QUESTIONS[4])!;
    expect(wireMessages(fifth).slice(1).map((message) => message.content)).toEqual([summaryNote({ text: S1, throughTurn: 1 }), SUMMARY_ACKNOWLEDGED, QUESTIONS[1], 'Answer to: Remember thi', 'Thanks.', 'Answer to: Thanks.', 'OK.', 'Answer to: OK.', QUESTIONS[4]]);
    const last = turnRequests.at(-1)!;
    expect(wireMessages(last).slice(1)).toEqual([
      { role: 'user', content: summaryNote({ text: S2, throughTurn: 4 }) },
      { role: 'assistant', content: SUMMARY_ACKNOWLEDGED },
      { role: 'user', content: QUESTIONS[4] },
      { role: 'assistant', content: 'Answer to: Another long' },
      { role: 'user', content: QUESTIONS[5] },
    ]);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);

    // The summary call counts in its turn's usage (two completions of the scripted usage).
    expect(results[2]).toMatchObject({ turn: 3, stopReason: 'completed', usage: { promptTokens: 2 * 192, completionTokens: 2 * 171 } });
    // The conversation's totals are every turn's, the summary call's included.
    const sum = (key: 'promptTokens' | 'completionTokens') => results.slice(0, 4).reduce((total, result) => total + result.usage[key], 0);
    expect(results[3].usage).toEqual({ promptTokens: 192, completionTokens: 171, conversation: { promptTokens: sum('promptTokens'), completionTokens: sum('completionTokens') } });
    // Streamed when it changes, before the turn's first round.
    const names = sixth.events.map((event) => event.event).filter((name) => name !== 'text-delta');
    expect(names.slice(0, 2)).toEqual(['history-summary', 'round-start']);
    expect(sixth.events[0]!.data).toEqual({ throughTurn: 4 });

    // Stored with the conversation: after a restart, GET shows it, and every turn whole.
    await local.restart();
    const view = await getJson(`${local.server.url}/conversations/long-talk`);
    expect(view.body.historySummary).toEqual({ text: S2, throughTurn: 4 });
    expect(view.body.turns.map((turn: { messages: HistoryMessage[] }) => turn.messages[0]!.content)).toEqual(QUESTIONS);
  });
});
