import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SUMMARY_PROMPT, subQueryPrompt } from '../../lib/extensions/deep-search/prompts.ts';
import { getJson, serversPerTest } from '../support/configured-local-server.ts';
import { postForEvents } from '../support/sse-client.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';
import { completionBodies, toolAnswers, toolNames, wireMessages, wireViolations } from '../support/wire-requests.ts';

const SEARCH_SERVER = fileURLToPath(new URL('../fixtures/search-server.ts', import.meta.url));
const COSTS_URL = 'https://energy.example.org/heat-pumps/costs';
const HOW_URL = 'https://energy.example.org/heat-pumps/how-they-work';

/** deepSearch through `npm start`, over the search fixture as a stdio MCP server of agent.yml. */
describe('deepSearch through npm start', () => {
  const servers = serversPerTest();

  it('plans, searches and reads through the stdio search server, summarizes with sources, and streams each step', async () => {
    // Prepare
    const QUESTION = 'What does it cost to run a heat pump?';
    const SUMMARY = 'About as much as a gas boiler at 0.30 per kWh of electricity [1]; it gives three units of heat per unit [2].';
    const ANSWER = `About as much as gas (${COSTS_URL}).`;
    const model = await servers.model([
      toolCallsReply([{ id: 'deep_1', name: 'deep_search', arguments: { query: QUESTION } }]),
      textReply('{"queries": ["heat pump running costs"]}'),
      textReply(SUMMARY),
      textReply(ANSWER),
    ]);
    const yml = [
      'mcpServers:',
      `  web: { command: node, args: [${JSON.stringify(SEARCH_SERVER)}] }`,
      'deepSearch: { server: web, tool: search, readTool: fetch, maxResults: 2, maxReads: 1 }',
      'model: { maxRetries: 0 }',
    ].join('\n');
    const local = await servers.local(yml, model);

    // Act
    const exchange = await postForEvents(`${local.server.url}/conversations/heat/messages`, { body: { message: QUESTION } });

    // Assess: the wire requests: the tool offered, the planning call, the summary call, the answer.
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(4);
    expect(toolNames(bodies[0]!)).toContain('deep_search');
    expect(wireMessages(bodies[1]!)).toEqual([{ role: 'system', content: subQueryPrompt(3) }, { role: 'user', content: `Question: ${QUESTION}` }]);
    expect(toolNames(bodies[1]!)).toEqual([]);
    expect(wireMessages(bodies[2]!)[0]).toEqual({ role: 'system', content: SUMMARY_PROMPT });
    const material = String(wireMessages(bodies[2]!)[1]!.content);
    expect(material).toContain(`[1] Heat pump running costs\nURL: ${COSTS_URL}\nSnippet: Running costs of a heat pump compared with a gas boiler.\nText:\nWith electricity at 0.30 per kWh`);
    expect(material).toContain(`[2] How heat pumps work\nURL: ${HOW_URL}\nSnippet:`);
    expect(wireViolations(bodies[3]!)).toEqual([]);
    expect(toolAnswers(bodies[3]!).map((message) => [message.tool_call_id, message.content])).toEqual([
      ['deep_1', `${SUMMARY}\n\nSources:\n[1] Heat pump running costs <${COSTS_URL}>\n[2] How heat pumps work <${HOW_URL}>`],
    ]);
    // Assess: the progress events and the result.
    const progress = exchange.events.filter((event) => event.event === 'deep-search').map((event) => event.data);
    expect(progress).toEqual([
      { toolCallId: 'deep_1', step: 'sub-queries', queries: ['heat pump running costs'] },
      { toolCallId: 'deep_1', step: 'search', query: 'heat pump running costs', ok: true, results: 2 },
      { toolCallId: 'deep_1', step: 'read', url: COSTS_URL, ok: true },
      { toolCallId: 'deep_1', step: 'summary', sources: [COSTS_URL, HOW_URL] },
    ]);
    const turnEnd = exchange.events.find((event) => event.event === 'turn-end')!.data as any;
    expect(turnEnd).toMatchObject({ stopReason: 'completed', reply: ANSWER, rounds: 4, toolCalls: [{ id: 'deep_1', name: 'deep_search', ok: true }] });
    const stored = await getJson(`${local.server.url}/conversations/heat`);
    expect(stored.body.turns[0].messages.find((message: any) => message.role === 'tool').content).toContain(`<${COSTS_URL}>`);
  }, 60_000);
});
