import { describe, expect, it } from 'vitest';
import { historyViolations } from '../../lib/core/history.ts';
import { getJson, MANY_TOOLS_SERVER, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { postForEvents } from '../support/sse-client.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';
import { completionBodies, toolAnswers, toolNames, wireTools, wireViolations } from '../support/wire-requests.ts';

/** The generated catalog (30 domains × 10 actions) as one stdio MCP server, with agent.yml's other keys. */
const catalogYml = (keys: string) => `${keys}\nmodel: { maxRetries: 0 }\nmcpServers:\n  backoffice: { command: node, args: [${JSON.stringify(MANY_TOOLS_SERVER)}] }\n`;

// Each test starts npm start and a 300-tool MCP server: slow on a loaded 2-core machine.
describe('tools.routing on a catalog of 300 tools through npm start', { timeout: 120_000 }, () => {
  const servers = serversPerTest();

  it('auto above tools.maxOffered: offers search_tools alone, then the tools a search found, which the model calls, in this turn and the next', async () => {
    // Prepare
    const model = await servers.model([
      toolCallsReply([{ id: 'search_1', name: 'search_tools', arguments: { query: 'cancel a customer order' } }]),
      toolCallsReply([{ id: 'cancel_1', name: 'orders_cancel', arguments: { id: 'ORD1' } }]),
      textReply('ORD1 is cancelled.'),
      textReply('Nothing else to cancel.'),
    ]);
    const local = await servers.local(catalogYml('tools: { routing: auto }'), model);

    // Act
    const result = await postJson(`${local.server.url}/conversations/routed/messages`, { message: 'Cancel order ORD1' });

    // Assess
    expect(result).toMatchObject({ status: 200, body: { stopReason: 'completed', reply: 'ORD1 is cancelled.', rounds: 3 } });
    expect(result.body.toolCalls.map((call: any) => [call.id, call.name, call.ok])).toEqual([['search_1', 'search_tools', true], ['cancel_1', 'orders_cancel', true]]);
    const bodies = completionBodies(model);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
    expect(toolNames(bodies[0]!)).toEqual(['search_tools']);
    const search = wireTools(bodies[0]!)[0]!.function;
    expect(search.description).toMatch(/^Search the catalog of 300 tools by what you need to do/);
    expect(search.parameters).toMatchObject({ required: ['query'] });
    const [found] = toolAnswers(bodies[1]!);
    expect(found).toMatchObject({ tool_call_id: 'search_1', name: 'search_tools' });
    expect(found!.content!.split('\n').slice(0, 2)).toEqual(['Tools you can call from your next step:', '- orders_cancel(id, query) [backoffice]: Cancels one of customer orders.']);
    const foundNames = found!.content!.split('\n').slice(1).map((line) => /^- (\w+)\(/.exec(line)![1]);
    // From the next round: the search tool, then the tools it found (in catalog order), nothing else.
    const offered = toolNames(bodies[1]!);
    expect(offered[0]).toBe('search_tools');
    expect(offered.slice(1).sort()).toEqual([...foundNames].sort());
    expect(foundNames).toHaveLength(5);
    // The found tool went to the MCP server under its own name, with the model's arguments.
    expect(toolAnswers(bodies[2]!).map((message) => message.tool_call_id)).toEqual(['search_1', 'cancel_1']);
    expect(JSON.parse(toolAnswers(bodies[2]!)[1]!.content!)).toEqual({ tool: 'orders_cancel', arguments: { id: 'ORD1' } });
    const stored = (await getJson(`${local.server.url}/conversations/routed`)).body.turns[0].messages;
    expect(historyViolations(stored)).toEqual([]);

    // Act: the next turn still offers what the conversation found.
    await postJson(`${local.server.url}/conversations/routed/messages`, { message: 'Anything else?' });

    // Assess
    expect(toolNames(completionBodies(model)[3]!)).toEqual(toolNames(bodies[1]!));
  });

  it('single: offers mcp_query (beside write_todos), runs the call as the real tool and answers it as the model’s call', async () => {
    // Prepare
    const model = await servers.model([
      toolCallsReply([{ id: 'query_1', name: 'mcp_query', arguments: { server: 'backoffice', tool: 'weather_get', arguments: { id: 'shanghai' } } }]),
      textReply('Shanghai: see the forecast.'),
    ]);
    const local = await servers.local(catalogYml('todoList: true\ntools: { routing: single }'), model);

    // Act
    const exchange = await postForEvents(`${local.server.url}/conversations/single/messages`, { body: { message: 'Weather in Shanghai?' } });

    // Assess
    const bodies = completionBodies(model);
    expect(toolNames(bodies[0]!)).toEqual(['write_todos', 'mcp_query']);
    const query = wireTools(bodies[0]!)[1]!.function;
    expect(query.description).toMatch(/^Calls a tool of an MCP server: give the server, the tool and its arguments\. Servers and their tools \(arguments in brackets\):\n- backoffice: orders_list\(id, query, limit\); orders_get\(id, query\); /);
    expect(query.description).toContain('translations_summarize(id, query)');
    // The model's call is answered under its own id and name; the MCP server ran weather_get.
    expect(toolAnswers(bodies[1]!).map((message) => [message.tool_call_id, message.name, JSON.parse(message.content!)])).toEqual([['query_1', 'mcp_query', { tool: 'weather_get', arguments: { id: 'shanghai' } }]]);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
    // Events and the result name the tool that ran.
    expect(exchange.events.find((event) => event.event === 'tool-call')!.data).toEqual({ round: 1, id: 'query_1', name: 'weather_get', arguments: { id: 'shanghai' } });
    const turnEnd = exchange.events.find((event) => event.event === 'turn-end')!.data as any;
    expect(turnEnd).toMatchObject({ stopReason: 'completed', reply: 'Shanghai: see the forecast.' });
    expect(turnEnd.toolCalls.map((call: any) => [call.id, call.name, call.ok])).toEqual([['query_1', 'weather_get', true]]);
    const stored = (await getJson(`${local.server.url}/conversations/single`)).body.turns[0].messages;
    expect(stored[1]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'query_1', name: 'mcp_query' }] });
    expect(historyViolations(stored)).toEqual([]);
  });

  it('auto while the catalog fits tools.maxOffered: offers every tool', async () => {
    const model = await servers.model([textReply('Hello.')]);
    const local = await servers.local(catalogYml('tools: { routing: auto, maxOffered: 300 }'), model);

    const result = await postJson(`${local.server.url}/conversations/everything/messages`, { message: 'Hi' });

    expect(result).toMatchObject({ status: 200, body: { reply: 'Hello.' } });
    const names = toolNames(completionBodies(model)[0]!);
    expect(names).toHaveLength(300);
    expect(names).not.toContain('search_tools');
  });
});
