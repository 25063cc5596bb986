import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { describe, expect, it } from 'vitest';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { SUMMARY_ACKNOWLEDGED, summaryNote } from '../../lib/extensions/history-summary.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { DEFAULT_HISTORY_SUMMARY_PROMPT } from '../../lib/config/schema.ts';
import { estimateTokens, historyViolations } from '../../lib/core/history.ts';
import type { HistoryMessage, Message } from '../../lib/core/messages.ts';
import type { ConversationStore } from '../../lib/core/ports/conversation-store.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { testGateway } from '../support/agent-fixture.ts';
import { recordingLogger } from '../support/recording-logger.ts';

/**
 * history.maxTokens 200 with summary.maxTokens 50: the kept turns get 150 tokens. A "turn of N"
 * below is a question and an answer of about N estimated tokens together.
 */
const YAML = 'history: { maxTokens: 200, strategy: summarize, summary: { maxTokens: 50 } }';

/** Text of `tokens` estimated tokens, after a label that names it. */
const text = (label: string, tokens: number) => `${label} ${'x'.repeat(Math.max(0, tokens * 4 - label.length - 1))}`;
/** The question and answer of a turn of about `tokens` tokens (each message costs 4 on its own). */
const turnOf = (label: string, tokens: number) => ({ question: text(`Q${label}`, tokens / 2 - 4), answer: text(`A${label}`, tokens / 2 - 4) });

function summarizing(script: ScriptedStep[], options: { yaml?: string; store?: ConversationStore; now?: () => number } = {}) {
  const config = parseConfig(options.yaml ?? YAML, { source: 'test.yml', environment: {} });
  const model = createScriptedModel(script);
  const store = options.store ?? createMemoryConversationStore();
  const logger = recordingLogger();
  const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model, gateway: testGateway(), store, logger, ...(options.now ? { now: options.now } : {}) });
  return { agent, model, store, logs: logger.entries };
}

const isSummaryRequest = (request: ModelRequest) => request.messages[0]?.content === DEFAULT_HISTORY_SUMMARY_PROMPT;
/** What a turn request sends between the system prompt and the question. */
const historyOf = (request: ModelRequest): Message[] => request.messages.slice(1, -1);
const pair = (label: string, tokens: number): HistoryMessage[] => {
  const turn = turnOf(label, tokens);
  return [{ role: 'user', content: turn.question }, { role: 'assistant', content: turn.answer, toolCalls: [] }];
};
const summaryPair = (summaryText: string, throughTurn: number): HistoryMessage[] => [
  { role: 'user', content: summaryNote({ text: summaryText, throughTurn }) },
  { role: 'assistant', content: SUMMARY_ACKNOWLEDGED, toolCalls: [] },
];

describe('history.strategy summarize', () => {
  it('sizes its test turns as the service estimates them', () => {
    expect(estimateTokens(pair('1', 60))).toBe(60);
  });

  it('summarizes only when the turns since the summary outgrow the budget, keeps half of it whole, and refreshes from the old summary', async () => {
    // Prepare: turns of 60, 60, 60, 10, 60, 60 and 60 tokens; the kept turns may hold 150.
    const sizes = [60, 60, 60, 10, 60, 60, 60];
    const answers = sizes.map((size, index) => turnOf(String(index + 1), size).answer);
    const { agent, model, logs } = summarizing([
      textReply(answers[0]!),
      textReply(answers[1]!),
      textReply(answers[2]!),
      textReply('S1: questions 1 and 2.', { promptTokens: 70, completionTokens: 9 }),
      textReply(answers[3]!),
      textReply(answers[4]!),
      textReply(answers[5]!),
      textReply('S2: questions 1 to 5.', { promptTokens: 80, completionTokens: 7 }),
      textReply(answers[6]!),
    ]);
    const ask = (index: number) => agent.ask({ conversationId: 'long', message: turnOf(String(index + 1), sizes[index]!).question });

    // Act: turns 1 to 3 fit whole.
    for (const index of [0, 1, 2]) await ask(index);
    // Assess: no summary call yet, and the plain history.
    expect(model.requests.filter(isSummaryRequest)).toHaveLength(0);
    expect(historyOf(model.requests[2]!)).toEqual([...pair('1', 60), ...pair('2', 60)]);

    // Act: turn 4; turns 1 to 3 (180) outgrow 150.
    const fourth = await ask(3);
    // Assess: one summary call of turns 1 and 2, then the turn's own with the summary before turn 3 (within 75).
    expect(model.requests).toHaveLength(5);
    const first = model.requests[3]!;
    expect(first.tools).toEqual([]);
    expect(first.messages).toHaveLength(2);
    expect(first.messages[0]).toEqual({ role: 'system', content: DEFAULT_HISTORY_SUMMARY_PROMPT });
    expect(first.messages[1]!.content).toBe(
      `The summary so far: none yet.\n\nThe turns that follow it:\n\n### Turn 1\nUser: ${turnOf('1', 60).question}\nAssistant: ${turnOf('1', 60).answer}\n\n### Turn 2\nUser: ${turnOf('2', 60).question}\nAssistant: ${turnOf('2', 60).answer}\n\nWrite the summary of turns 1 to 2, in at most about 50 tokens.`,
    );
    expect(historyOf(model.requests[4]!)).toEqual([...summaryPair('S1: questions 1 and 2.', 2), ...pair('3', 60)]);
    expect(fourth.usage).toEqual({ promptTokens: 10 + 70, completionTokens: 5 + 9, conversation: { promptTokens: 3 * 10 + 10 + 70, completionTokens: 3 * 5 + 5 + 9 } });
    expect(logs).toContainEqual(expect.objectContaining({ level: 'info', message: 'history summarized', fields: expect.objectContaining({ turn: 4, throughTurn: 2, turnsSummarized: 2 }) }));

    // Act: turns 5 and 6; the turns since the summary (70, then 130) still fit: no call.
    await ask(4);
    await ask(5);
    expect(model.requests).toHaveLength(7);
    expect(historyOf(model.requests[6]!)).toEqual([...summaryPair('S1: questions 1 and 2.', 2), ...pair('3', 60), ...pair('4', 10), ...pair('5', 60)]);

    // Act: turn 7; 190 outgrow 150: turns 3 to 5 join the summary, turn 6 stays whole.
    await ask(6);
    const refresh = model.requests[7]!;
    expect(isSummaryRequest(refresh)).toBe(true);
    expect(refresh.messages[1]!.content).toMatch(/^The summary so far \(turns 1 to 2\):\nS1: questions 1 and 2\.\n\nThe turns that follow it:\n\n### Turn 3\n[^#]+### Turn 4\n[^#]+### Turn 5\nUser: Q5 x+\nAssistant: A5 x+\n\nWrite the summary of turns 1 to 5, in at most about 50 tokens\.$/);
    expect(historyOf(model.requests[8]!)).toEqual([...summaryPair('S2: questions 1 to 5.', 5), ...pair('6', 60)]);
    for (const request of model.requests) expect(historyViolations(request.messages)).toEqual([]);

    // Assess: two calls in seven turns; the summary is kept with the conversation, and shown.
    expect(model.requests.filter(isSummaryRequest)).toHaveLength(2);
    await expect(agent.getConversation({ conversationId: 'long' })).resolves.toMatchObject({ historySummary: { text: 'S2: questions 1 to 5.', throughTurn: 5 } });
  });

  it('never parts a tool call from its result: turns are kept whole or summarized whole', async () => {
    // Prepare: a turn with a tool round (about 97 tokens), then two that push it out at turn 4.
    const { agent, model } = summarizing([
      toolCallsReply([{ id: 'w1', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply(text('A1', 30)),
      textReply('ok2'),
      textReply(text('A3', 26)),
      textReply('S: the weather in Shanghai was sunny.'),
      textReply('ok'),
    ]);
    await agent.ask({ conversationId: 'tools', message: text('Q1', 30) });
    await agent.ask({ conversationId: 'tools', message: 'Q2' });
    await agent.ask({ conversationId: 'tools', message: text('Q3', 26) });
    expect(model.requests.filter(isSummaryRequest)).toHaveLength(0);

    // Act
    await agent.ask({ conversationId: 'tools', message: 'Q4' });

    // Assess: the summary request reads the tool round as text; the turn request has no tool message left alone.
    const summaryRequest = model.requests.find(isSummaryRequest)!;
    expect(summaryRequest.messages[1]!.content).toContain('Assistant called getWeather({"city":"上海"})\nResult of getWeather: {"city":"上海","condition":"晴"}');
    const last = model.requests.at(-1)!;
    expect(last.messages.some((message) => message.role === 'tool')).toBe(false);
    for (const request of model.requests) expect(historyViolations(request.messages)).toEqual([]);
  });

  it('reads turns older than the window when one long turn pushes several out at once', async () => {
    // Prepare: three turns of 40, then one of 140; at turn 5 only turn 4 is kept.
    const { agent, model } = summarizing([
      textReply(turnOf('1', 40).answer),
      textReply(turnOf('2', 40).answer),
      textReply(turnOf('3', 40).answer),
      textReply(turnOf('4', 140).answer),
      textReply('S: turns 1 to 3.'),
      textReply('ok'),
    ]);
    for (const [label, size] of [['1', 40], ['2', 40], ['3', 40], ['4', 140]] as const) await agent.ask({ conversationId: 'jump', message: turnOf(label, size).question });

    // Act
    await agent.ask({ conversationId: 'jump', message: 'Q5' });

    // Assess: one call covering turns 1 to 3 (turn 1 was past what the opening Query read).
    const summaries = model.requests.filter(isSummaryRequest);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.messages[1]!.content!.match(/### Turn \d/g)).toEqual(['### Turn 1', '### Turn 2', '### Turn 3']);
    expect(historyOf(model.requests.at(-1)!)).toEqual([...summaryPair('S: turns 1 to 3.', 3), ...pair('4', 140)]);
  });

  it('falls back to the window when the summary fails, says so in the log, and tries again next turn', async () => {
    // Prepare: turn 4 pushes turn 1 out, and the summary call fails.
    const { agent, model, logs } = summarizing([
      textReply(turnOf('1', 60).answer),
      textReply(turnOf('2', 60).answer),
      textReply(turnOf('3', 60).answer),
      new Error('summary model down'),
      textReply('answer 4'),
      textReply('S: recovered.'),
      textReply('answer 5'),
    ]);
    for (const label of ['1', '2', '3']) await agent.ask({ conversationId: 'fails', message: turnOf(label, 60).question });

    // Act
    const fourth = await agent.ask({ conversationId: 'fails', message: 'Q4' });

    // Assess: the turn completes with the plain window (whole turns within history.maxTokens).
    expect(fourth).toMatchObject({ stopReason: 'completed', reply: 'answer 4' });
    expect(historyOf(model.requests[4]!)).toEqual([...pair('1', 60), ...pair('2', 60), ...pair('3', 60)]);
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringMatching(/history summary failed.*window/), fields: expect.objectContaining({ turn: 4, error: 'summary model down' }) }));
    expect(await agent.getConversation({ conversationId: 'fails' })).not.toHaveProperty('historySummary');

    // Act: the next turn tries again, with everything since the last summary (there is none yet).
    await agent.ask({ conversationId: 'fails', message: 'Q5' });
    const retried = model.requests.filter(isSummaryRequest)[1]!;
    expect(retried.messages[1]!.content!.match(/### Turn \d/g)).toEqual(['### Turn 1', '### Turn 2']);
    expect(historyOf(model.requests.at(-1)!).slice(0, 2)).toEqual(summaryPair('S: recovered.', 2));
  });

  it('bounds the summary call by the turn’s time, and skips it when too little is left', async () => {
    // Prepare: a clock that stands still; turn.timeoutSeconds 20, reserve 3.
    const clock = Date.UTC(2025, 0, 1);
    const yaml = `${YAML}\nturn: { timeoutSeconds: 20, reserveSeconds: 3 }\nmodel: { timeoutSeconds: 60 }`;
    const { agent, model, logs } = summarizing([
      textReply(turnOf('1', 60).answer),
      textReply(turnOf('2', 60).answer),
      textReply(turnOf('3', 60).answer),
      textReply('S: bounded.'),
      textReply('answer 4'),
      textReply('answer 5'),
    ], { yaml, now: () => clock });
    for (const label of ['1', '2', '3']) await agent.ask({ conversationId: 'timed', message: turnOf(label, 60).question });

    // Act
    await agent.ask({ conversationId: 'timed', message: text('Q4', 100) });

    // Assess: at most half of the 17 s the turn may use.
    expect(model.requests[3]!.timeoutMs).toBe(8_500);

    // Act: a turn with 3.5 s left of its own 20 (a caller's deadline), and turns 3 and 4 (170) over 150.
    await agent.ask({ conversationId: 'timed', message: turnOf('5', 60).question, deadlineAt: clock + 6_500 });

    // Assess: no summary call; the window, after the old summary.
    expect(model.requests.filter(isSummaryRequest)).toHaveLength(1);
    expect(historyOf(model.requests.at(-1)!).slice(0, 2)).toEqual(summaryPair('S: bounded.', 2));
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ turn: 5, error: expect.stringMatching(/too little of the turn's time/) }) }));
  });

  it('cuts a summary longer than summary.maxTokens', async () => {
    const { agent, model } = summarizing([
      textReply(turnOf('1', 60).answer),
      textReply(turnOf('2', 60).answer),
      textReply(turnOf('3', 60).answer),
      textReply(`long ${'y'.repeat(1_000)}`),
      textReply('answer 4'),
    ]);
    for (const label of ['1', '2', '3']) await agent.ask({ conversationId: 'cut', message: turnOf(label, 60).question });

    await agent.ask({ conversationId: 'cut', message: 'Q4' });

    const view = (await agent.getConversation({ conversationId: 'cut' })) as unknown as { historySummary: { text: string } };
    expect(view.historySummary.text).toMatch(/^long y+…$/);
    expect(estimateTokens([{ role: 'user', content: view.historySummary.text }])).toBeLessThanOrEqual(50);
    expect(historyOf(model.requests.at(-1)!)[0]!.content).toContain(view.historySummary.text);
  });

  it('refuses a summary budget that leaves the kept turns nothing', () => {
    expect(() => parseConfig('history: { maxTokens: 500, strategy: summarize, summary: { maxTokens: 500 } }', { source: 'test.yml', environment: {} })).toThrow(
      /history\.summary\.maxTokens: must be less than history\.maxTokens \(500\)/,
    );
  });
});
