import { afterEach, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { ConfigError } from '../../lib/core/errors.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { SUMMARY_PROMPT, subQueryPrompt } from '../../lib/extensions/deep-search/prompts.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { createSearchServer } from '../fixtures/search-mcp.ts';
import { gatewayOptions } from '../support/mcp-servers.ts';

/**
 * deep_search in a turn of the agent: a real MCP client (the gateway) against the search fixture,
 * a real MCP SDK server over the SDK's in-memory transport; the model scripted, each request it
 * got checked afterwards.
 */
const QUESTION = 'Is a heat pump worth it?';
const HOW = { title: 'How heat pumps work', url: 'https://energy.example.org/heat-pumps/how-they-work' };
const SALES = { title: 'Heat pump sales in Europe rise', url: 'https://news.example.com/2026/heat-pump-sales' };
const COSTS = { title: 'Heat pump running costs', url: 'https://energy.example.org/heat-pumps/costs' };

const gateways: ToolGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

/** agent.yml with the search server `web` and deepSearch over it; `server` and `deepSearch` add settings. */
const yaml = ({ maxRounds = 6, server = '', deepSearch = 'readTool: fetch, maxSubQueries: 2, maxResults: 2, maxReads: 2' } = {}) =>
  [
    `maxRounds: ${maxRounds}`,
    'mcpServers:',
    `  web: { command: node, args: [test/fixtures/search-server.ts]${server ? `, ${server}` : ''} }`,
    `deepSearch: { server: web, tool: search, ${deepSearch} }`,
  ].join('\n');

function agentWith(script: ScriptedStep[], text = yaml(), server: Parameters<typeof createSearchServer>[1] = {}) {
  const calls: Array<{ tool: string; arguments: Record<string, unknown> }> = [];
  const gateway = createMcpGateway(gatewayOptions([{ name: 'web', type: 'in-memory', connect: (transport) => createSearchServer(calls, server).connect(transport) }]));
  gateways.push(gateway);
  const model = createScriptedModel(script);
  const agent = createAgent(parseConfig(text, { source: 'test.yml', environment: {} }), {
    model,
    gateway,
    store: createMemoryConversationStore(),
    logger: silentLogger,
    ownerCounters: createMemoryOwnerCounters(),
  });
  const events: unknown[] = [];
  const ask = () => agent.ask({ conversationId: 'research', message: QUESTION, onEvent: (event) => events.push(event) });
  const progress = () => events.filter((event: any) => event.type === 'extension' && event.name === 'deep-search').map((event: any) => event.data);
  return { agent, model, calls, ask, progress, gateway };
}

const callDeepSearch = toolCallsReply([{ id: 'search_1', name: 'deep_search', arguments: { query: QUESTION } }]);
const queries = (...list: string[]) => textReply(JSON.stringify({ queries: list }));

describe('deep_search in a turn', () => {
  it('plans sub-queries from the query, searches and reads through the MCP server, and gives the model a summary citing the URLs it used', async () => {
    // Prepare
    const SUMMARY = 'A heat pump delivers about three units of heat per unit of electricity [1], and costs about as much to run as a gas boiler [3].';
    const { model, calls, ask, progress } = agentWith([
      callDeepSearch,
      queries('how heat pumps work', 'heat pump running costs'),
      textReply(SUMMARY),
      textReply(`Often, yes: it runs at about the cost of gas (${COSTS.url}).`),
    ]);

    // Act
    const result = await ask();

    // Assess: the turn, its two inner model calls counted as rounds.
    expect(result).toMatchObject({ stopReason: 'completed', rounds: 4, reply: `Often, yes: it runs at about the cost of gas (${COSTS.url}).` });
    expect(result.toolCalls).toMatchObject([{ id: 'search_1', name: 'deep_search', ok: true }]);
    const [first, planner, summarizer, last] = model.requests;
    expect(first!.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['search', 'fetch', 'deep_search']));
    // Assess: the sub-query call saw the query, and no tools.
    expect(planner!.messages).toEqual([
      { role: 'system', content: subQueryPrompt(2) },
      { role: 'user', content: `Question: ${QUESTION}` },
    ]);
    expect(planner!.tools).toEqual([]);
    // Assess: the server got each sub-query, then the reads of each one's best result.
    expect(calls).toEqual([
      { tool: 'search', arguments: { query: 'how heat pumps work' } },
      { tool: 'search', arguments: { query: 'heat pump running costs' } },
      { tool: 'fetch', arguments: { url: HOW.url } },
      { tool: 'fetch', arguments: { url: COSTS.url } },
    ]);
    // Assess: the summary call saw the numbered results (each URL once), the pages read, and no tools.
    expect(summarizer!.messages[0]).toEqual({ role: 'system', content: SUMMARY_PROMPT });
    expect(summarizer!.messages[1]!.content).toBe(
      [
        `Question: ${QUESTION}`,
        '',
        '## Sources',
        '',
        `[1] ${HOW.title}\nURL: ${HOW.url}\nSnippet: A heat pump moves heat from outside air into the house instead of burning fuel.\nText:\nA heat pump moves heat from the outside air into the house. For each kilowatt-hour of electricity it delivers about three kilowatt-hours of heat (a coefficient of performance of 3).`,
        '',
        `[2] ${SALES.title}\nURL: ${SALES.url}\nSnippet: Sales of heat pumps in Europe rose by 12% in 2025.`,
        '',
        `[3] ${COSTS.title}\nURL: ${COSTS.url}\nSnippet: Running costs of a heat pump compared with a gas boiler.\nText:\nWith electricity at 0.30 per kWh and gas at 0.10 per kWh, a heat pump with a coefficient of performance of 3 costs about as much to run as a gas boiler; installation costs 8,000 to 14,000.`,
      ].join('\n'),
    );
    expect(summarizer!.tools).toEqual([]);
    // Assess: the model got the summary with the sources it cites, and the history stays valid.
    expect(last!.messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'search_1', name: 'deep_search', content: `${SUMMARY}\n\nSources:\n[1] ${HOW.title} <${HOW.url}>\n[3] ${COSTS.title} <${COSTS.url}>` });
    expect(historyViolations(last!.messages.filter((message) => message.role !== 'system'))).toEqual([]);
    // Assess: each step streamed.
    expect(progress()).toEqual([
      { toolCallId: 'search_1', step: 'sub-queries', queries: ['how heat pumps work', 'heat pump running costs'] },
      { toolCallId: 'search_1', step: 'search', query: 'how heat pumps work', ok: true, results: 2 },
      { toolCallId: 'search_1', step: 'search', query: 'heat pump running costs', ok: true, results: 2 },
      { toolCallId: 'search_1', step: 'read', url: HOW.url, ok: true },
      { toolCallId: 'search_1', step: 'read', url: COSTS.url, ok: true },
      { toolCallId: 'search_1', step: 'summary', sources: [HOW.url, COSTS.url] },
    ]);
    // Assess: the inner calls' tokens count in the turn's usage (four replies of 10 + 5).
    expect(result.usage).toMatchObject({ promptTokens: 40, completionTokens: 20 });
  });

  it('gives each of its calls through the gateway a signal of its own (ToolCallOptions.signal: the SDK keeps its listener on it)', async () => {
    const { gateway, ask } = agentWith([callDeepSearch, queries('how heat pumps work', 'heat pump running costs'), textReply('Summary [1].'), textReply('Often, yes.')]);
    const signals: AbortSignal[] = [];
    const callTool = gateway.callTool.bind(gateway);
    gateway.callTool = (name, args, options) => (signals.push(options.signal), callTool(name, args, options));

    await ask();

    // Two searches and two reads, each with its own signal, none aborted when the turn is over.
    expect(signals).toHaveLength(4);
    expect(new Set(signals).size).toBe(4);
    expect(signals.filter((signal) => signal.aborted)).toEqual([]);
  });

  it('searches no more than maxSubQueries when the model asks for more, and reads no more than maxReads', async () => {
    // Prepare
    const { model, calls, ask, progress } = agentWith([
      callDeepSearch,
      textReply('```json\n{"queries": ["heat pump sales europe", "how heat pumps work", "heat pump running costs", "insulation", "coefficient of performance"]}\n```'),
      textReply('Sales rose [1].'),
      textReply('Sales rose.'),
    ], yaml({ deepSearch: 'readTool: fetch, maxSubQueries: 2, maxResults: 1, maxReads: 1' }));

    // Act
    const result = await ask();

    // Assess
    expect(result).toMatchObject({ stopReason: 'completed', rounds: 4 });
    expect(calls).toEqual([
      { tool: 'search', arguments: { query: 'heat pump sales europe' } },
      { tool: 'search', arguments: { query: 'how heat pumps work' } },
      { tool: 'fetch', arguments: { url: SALES.url } },
    ]);
    expect(progress()[0]).toEqual({ toolCallId: 'search_1', step: 'sub-queries', queries: ['heat pump sales europe', 'how heat pumps work'] });
    expect(String(model.requests[2]!.messages[1]!.content)).toContain(`[2] ${HOW.title}\nURL: ${HOW.url}\nSnippet:`);
    expect(model.requests[3]!.messages.at(-1)!.content).toBe(`Sales rose [1].\n\nSources:\n[1] ${SALES.title} <${SALES.url}>`);
  });

  it('gives the model the results unsummarized when the rounds run out after the search, and the turn stops with max_rounds', async () => {
    // Prepare: round 1 calls deep_search, round 2 plans the searches; none is left for the summary.
    const { agent, model, calls, ask } = agentWith([callDeepSearch, queries('heat pump running costs')], yaml({ maxRounds: 2, deepSearch: 'maxResults: 1' }));

    // Act
    const result = await ask();

    // Assess: no summary call, no third model call; the results are in the tool message.
    expect(result).toMatchObject({ stopReason: 'max_rounds', rounds: 2 });
    expect(model.requests).toHaveLength(2);
    expect(calls).toEqual([{ tool: 'search', arguments: { query: 'heat pump running costs' } }]);
    expect(result.toolCalls).toMatchObject([{ name: 'deep_search', ok: true }]);
    const stored = await agent.readTurn({ conversationId: 'research' }, 1);
    expect(stored!.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'search_1',
      name: 'deep_search',
      content: `No model round was left to summarize (maxRounds); the search results as found:\n\nQuestion: ${QUESTION}\n\n## Sources\n\n[1] ${COSTS.title}\nURL: ${COSTS.url}\nSnippet: Running costs of a heat pump compared with a gas boiler.`,
    });
    expect(historyViolations(stored!.messages)).toEqual([]);
  });

  it('refuses a second deep search of the round when the first took the last round, calling nothing for it', async () => {
    // Prepare: round 1 calls deep_search twice; the first takes round 2 to plan, the second finds none left.
    const { model, calls, ask } = agentWith([
      toolCallsReply([
        { id: 'search_1', name: 'deep_search', arguments: { query: QUESTION } },
        { id: 'search_2', name: 'deep_search', arguments: { query: 'Does insulation come first?' } },
      ]),
      queries('heat pump running costs'),
    ], yaml({ maxRounds: 2, deepSearch: 'maxResults: 1' }));

    // Act
    const result = await ask();

    // Assess
    expect(result).toMatchObject({ stopReason: 'max_rounds', rounds: 2 });
    expect(result.toolCalls).toMatchObject([{ id: 'search_1', ok: true }, { id: 'search_2', ok: false }]);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages[1]).toEqual({ role: 'user', content: `Question: ${QUESTION}` });
    expect(calls).toEqual([{ tool: 'search', arguments: { query: 'heat pump running costs' } }]);
  });

  it('tells the model when the search tool fails, without a summary call, and lists a failed search beside the results of the others', async () => {
    // Prepare: the first deep search's only query fails; the second's first query fails, its second finds.
    const { model, ask } = agentWith([
      callDeepSearch,
      queries('heat pump outage'),
      toolCallsReply([{ id: 'search_2', name: 'deep_search', arguments: { query: QUESTION } }]),
      queries('heat pump outage', 'heat pump running costs'),
      textReply('It costs about as much as gas [1].'),
      textReply('About as much as gas.'),
    ], yaml({ deepSearch: 'maxResults: 1' }));

    // Act
    const result = await ask();

    // Assess: the first call failed as a tool result the model saw, with no summary round.
    expect(result).toMatchObject({ stopReason: 'completed', rounds: 6 });
    expect(result.toolCalls).toMatchObject([{ id: 'search_1', ok: false }, { id: 'search_2', ok: true }]);
    expect(model.requests[2]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      toolCallId: 'search_1',
      content: 'Error: The searches failed:\n"heat pump outage": search backend unavailable\nTry other words, or answer without a search.',
    });
    // Assess: the second call's summary saw the failure, and the final answer the source.
    expect(String(model.requests[4]!.messages[1]!.content)).toBe(
      `Question: ${QUESTION}\n\n## Sources\n\n[1] ${COSTS.title}\nURL: ${COSTS.url}\nSnippet: Running costs of a heat pump compared with a gas boiler.\n\n## Searches that failed\n\n"heat pump outage": search backend unavailable`,
    );
    expect(model.requests[5]!.messages.at(-1)!.content).toBe(`It costs about as much as gas [1].\n\nSources:\n[1] ${COSTS.title} <${COSTS.url}>`);
  });
});

describe('deep_search under tool control', () => {
  it('calls no tool that requireApproval destructive would hold, as the server lists it, and tells the model why', async () => {
    // Prepare: the server lists its tools without annotations, so `destructive` holds them for approval.
    const { model, calls, ask } = agentWith([callDeepSearch, textReply('I cannot search now.')], yaml({ server: 'requireApproval: destructive' }), { annotated: false });

    // Act
    const result = await ask();

    // Assess: no model call and no tool call of its own; the model read why.
    expect(result).toMatchObject({ stopReason: 'completed', rounds: 2, toolCalls: [{ name: 'deep_search', ok: false }] });
    expect(calls).toEqual([]);
    expect(model.requests[1]!.messages.at(-1)!.content).toBe(
      'Error: Deep search is unavailable: the tool "search" of MCP server "web" needs approval under agent.yml\'s requireApproval, and deep search calls only tools that do not. Answer without it.',
    );
  });

  it('searches with tools the server marks read-only under requireApproval destructive', async () => {
    const { calls, ask } = agentWith([callDeepSearch, queries('insulation'), textReply('Insulate first [1].'), textReply('Insulate first.')], yaml({ server: 'requireApproval: destructive', deepSearch: 'maxResults: 1' }));

    const result = await ask();

    expect(result).toMatchObject({ stopReason: 'completed', rounds: 4, toolCalls: [{ name: 'deep_search', ok: true }] });
    expect(calls).toEqual([{ tool: 'search', arguments: { query: 'insulation' } }]);
  });
});

describe('deepSearch in agent.yml', () => {
  it.each([
    ['a server that is not configured', yaml().replace('server: web', 'server: elsewhere'), /deepSearch: server "elsewhere" is not one of mcpServers \(web\)/],
    ['a search tool that needs approval', yaml({ server: 'requireApproval: always' }), /deepSearch: tool "search" needs approval under mcpServers.web.requireApproval/],
    ['a search tool the policy leaves out', yaml({ server: 'denyTools: [search]' }), /deepSearch: tool "search" is left out by mcpServers.web's allowTools or denyTools/],
    ['a read tool that needs approval', yaml({ server: 'requireApproval: [fetch]' }), /deepSearch: readTool "fetch" needs approval/],
  ])('refuses %s when the agent is made', (_case, text, message) => {
    expect(() => agentWith([], text)).toThrow(ConfigError);
    expect(() => agentWith([], text)).toThrow(message);
  });

  it('requires the server and the tool, and is off unless set', () => {
    expect(() => agentWith([], yaml().replace('tool: search, ', ''))).toThrow(/deepSearch: give "server" \(the MCP server, a name under mcpServers\) and "tool"/);
    expect(parseConfig('maxRounds: 2', { source: 'test.yml', environment: {} }).deepSearch.enabled).toBe(false);
  });
});
