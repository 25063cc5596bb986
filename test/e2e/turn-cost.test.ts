/**
 * What one turn may cost under the defaults, through npm start. A review made a 7-byte question
 * read 5.8 MB (about 1.5 M tokens) in 8 model calls: every round re-sends the turn's tool results,
 * and no budget was on. The defaults now bound both: the tool output a turn carries
 * (tools.maxTurnOutputChars) and its tokens (limits.tokensPerTurn).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { historyViolations } from '../../lib/core/history.ts';
import { getJson, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { toolCallsReply, type ChatRequestBody } from '../support/scripted-openai-server.ts';

const REPORT_SERVER = fileURLToPath(new URL('../fixtures/report-server.ts', import.meta.url));
/** The defaults this test holds the service to. */
const MAX_ROUNDS = 8;
const MAX_TURN_OUTPUT_CHARS = 64_000;
const TOKENS_PER_TURN = 200_000;

/** Only the report server: every other setting is the default. */
const reportServerYml = (env = '') => `mcpServers:\n  reports: { command: node, args: [${JSON.stringify(REPORT_SERVER)}]${env} }\n`;

/** A model that asks for 16 whole reports every round (tools.maxCallsPerRound), reporting `usage` for each request. */
function reportHungryModel(usage: (body: ChatRequestBody) => number) {
  return (body: ChatRequestBody, index: number) => {
    const reply = toolCallsReply(Array.from({ length: 16 }, (_, call) => ({ id: `call_${index}_${call}`, name: 'fullReport', arguments: { part: `${index}.${call}` } }))) as { usage: Record<string, number> };
    reply.usage = { prompt_tokens: usage(body), completion_tokens: 300, total_tokens: usage(body) + 300 };
    return reply;
  };
}

const charsOf = (body: ChatRequestBody) => JSON.stringify(body.messages).length;

describe('the cost of one turn under the default agent.yml', () => {
  const servers = serversPerTest();

  it('carries at most tools.maxTurnOutputChars of tool output, so the model reads a bounded amount, and says why results were cut', async () => {
    // About four characters a token, as providers count English.
    const model = await servers.model(reportHungryModel((body) => Math.ceil(charsOf(body) / 4)));
    const { server } = await servers.local(`model: { maxRetries: 0 }\n${reportServerYml()}`, model);

    const result = await postJson(`${server.url}/conversations/hungry/messages`, { message: 'report' });

    expect(result.status).toBe(200);
    const read = model.requests.map((request) => charsOf(request.body as ChatRequestBody));
    // Before: 16 results of 16,000 characters a round, each re-sent every round after (5.75 MB in
    // all). Now each request carries at most the turn's output limit, besides the calls themselves
    // and the short notes of the results left out (about 48,000 characters by the last round here).
    expect(read.reduce((sum, chars) => sum + chars, 0)).toBeLessThan(MAX_ROUNDS * 2 * MAX_TURN_OUTPUT_CHARS);
    expect(Math.max(...read)).toBeLessThan(2 * MAX_TURN_OUTPUT_CHARS);
    // The stop says what happened: the round limit, with the rounds used.
    expect(result.body).toMatchObject({ stopReason: 'max_rounds', rounds: MAX_ROUNDS });
    expect(result.body.reply).toMatch(/I stopped after 8 rounds, at the turn's limit of 8/);
    expect(result.body.usage.promptTokens + result.body.usage.completionTokens).toBeLessThan(TOKENS_PER_TURN);
    // The results past the limit say so, in words the model can act on.
    const stored = (await getJson(`${server.url}/conversations/hungry`)).body.turns[0].messages;
    expect(historyViolations(stored)).toEqual([]);
    const toolTexts: string[] = stored.filter((message: any) => message.role === 'tool' && !/^Not executed/.test(message.content)).map((message: any) => message.content);
    const whole = toolTexts.filter((text) => !/tools\.maxTurnOutputChars/.test(text));
    expect(whole.length).toBeGreaterThan(0);
    expect(toolTexts.filter((text) => /^Not shown: this turn's tool results already reached their limit of 64000 characters \(tools\.maxTurnOutputChars\)/.test(text)).length).toBeGreaterThan(16);
    expect(toolTexts.every((text) => !/tools\.maxTurnOutputChars/.test(text) || /Answer with what you have/.test(text))).toBe(true);
    expect(toolTexts.join('').length).toBeLessThan(MAX_TURN_OUTPUT_CHARS + toolTexts.length * 400);
  }, 60_000);

  it('stops at the default limits.tokensPerTurn, saying which limit ran out and how far', async () => {
    // A provider that counts a large context: 60,000 tokens a call.
    const model = await servers.model(reportHungryModel(() => 60_000));
    const { server } = await servers.local(`model: { maxRetries: 0 }\n${reportServerYml(', env: { REPORT_CHARS: "100" }')}`, model);

    const result = await postJson(`${server.url}/conversations/costly/messages`, { message: 'report' });

    expect(result.status).toBe(200);
    // 4 calls: 241,200 tokens reach the limit; the fifth is never made.
    expect(model.requests).toHaveLength(4);
    expect(result.body).toMatchObject({ stopReason: 'budget_exhausted', rounds: 4, budget: { limit: 'tokensPerTurn', allowedTokens: TOKENS_PER_TURN, usedTokens: 241_200 } });
    expect(result.body.reply).toMatch(/this turn used 241200 tokens of the 200000 a turn may use \(limits\.tokensPerTurn\)/);
  }, 60_000);
});
