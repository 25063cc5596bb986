import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/create-agent.ts';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ToolMessage } from '../../lib/core/messages.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { createManyToolsServer } from '../fixtures/many-tools-server.ts';
import { gatewayOptions } from '../support/mcp-servers.ts';

let gateway: ToolGateway;
beforeAll(async () => {
  gateway = createMcpGateway(gatewayOptions([{ name: 'backoffice', type: 'in-memory', connect: (transport) => createManyToolsServer().connect(transport) }]));
  expect(await gateway.listTools()).toHaveLength(300);
});
afterAll(async () => {
  await gateway?.close();
});

function agentWith(tools: string, script: ScriptedStep[], server = '') {
  const config = parseConfig(`tools: { ${tools} }\nmcpServers:\n  backoffice: { command: unused${server} }`, { source: 'test.yml', environment: {} });
  const model = createScriptedModel(script);
  const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model, gateway, store: createMemoryConversationStore(), logger: silentLogger });
  return { agent, model };
}

const toolMessages = (messages: readonly { role: string }[]) => messages.filter((message): message is ToolMessage => message.role === 'tool');
const toolsBytes = (tools: unknown) => Buffer.byteLength(JSON.stringify(tools));

describe('tools.routing on a catalog of 300 tools', () => {
  it('offers every tool with routing all', async () => {
    const { agent, model } = agentWith('routing: all', [textReply('ok')]);
    await agent.ask({ conversationId: 'all', message: 'hi' });
    expect(model.requests[0]!.tools).toHaveLength(300);
  });

  it('offers search_tools in auto mode above tools.maxOffered, then the tools a search found, from the next round and in later turns', async () => {
    const { agent, model } = agentWith('routing: auto, maxOffered: 128', [
      toolCallsReply([{ id: 's1', name: 'search_tools', arguments: { query: 'cancel a customer order' } }]),
      toolCallsReply([{ id: 'c1', name: 'orders_cancel', arguments: { id: 'ORD1' } }]),
      textReply('Cancelled.'),
      textReply('Anything else?'),
    ]);

    const result = await agent.ask({ conversationId: 'search', message: 'Cancel order ORD1' });

    expect(model.requests[0]!.tools.map((tool) => tool.name)).toEqual(['search_tools']);
    expect(model.requests[0]!.tools[0]!.description).toMatch(/catalog of 300 tools/);
    const found = toolMessages(model.requests[1]!.messages)[0]!.content;
    expect(found.split('\n')[1]).toMatch(/^- orders_cancel\(id, query\) \[backoffice\]: Cancels one of customer orders\.$/);
    const offered = model.requests[1]!.tools.map((tool) => tool.name);
    expect(offered[0]).toBe('search_tools');
    expect(offered).toContain('orders_cancel');
    expect(offered.length).toBeLessThanOrEqual(6);
    expect(result).toMatchObject({ stopReason: 'completed', toolCalls: [{ name: 'search_tools', ok: true }, { name: 'orders_cancel', ok: true }] });
    expect(JSON.parse(toolMessages(model.requests[2]!.messages)[1]!.content)).toEqual({ tool: 'orders_cancel', arguments: { id: 'ORD1' } });

    await agent.ask({ conversationId: 'search', message: 'And now?' });
    expect(model.requests[3]!.tools.map((tool) => tool.name)).toContain('orders_cancel');
  });

  it('routes mcp_query calls through the real tool’s schema and policy, and answers a wrong tool with close matches', async () => {
    const { agent, model } = agentWith('routing: single', [
      toolCallsReply([
        { id: 'q1', name: 'mcp_query', arguments: { server: 'backoffice', tool: 'weather_get', arguments: { id: 'shanghai' } } },
        { id: 'q2', name: 'mcp_query', arguments: { server: 'backoffice', tool: 'weather_get', arguments: { city: 'shanghai' } } },
        { id: 'q3', name: 'mcp_query', arguments: { server: 'backoffice', tool: 'weather_lookup', arguments: {} } },
        { id: 'q4', name: 'mcp_query', arguments: { server: 'backoffice', tool: 'orders_delete', arguments: { id: 'ORD9' } } },
      ]),
      textReply('done'),
    ], ', requireApproval: ["*_delete"]');

    const paused = await agent.ask({ conversationId: 'single', message: 'weather, then delete ORD9' });

    const offered = model.requests[0]!.tools;
    expect(offered.map((tool) => tool.name)).toEqual(['mcp_query']);
    expect(offered[0]!.description).toMatch(/- backoffice: orders_list\(id, query, limit\); orders_get\(id, query\);/);
    const answers = toolMessages(model.requests.length > 1 ? model.requests[1]!.messages : []);
    expect(answers).toEqual([]);
    expect(paused).toMatchObject({ stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'q4', name: 'orders_delete', server: 'backoffice', arguments: { id: 'ORD9' } }] });
    expect(paused.toolCalls.map((call) => [call.id, call.name, call.ok])).toEqual([['q1', 'weather_get', true], ['q2', 'weather_get', false], ['q3', 'mcp_query', false]]);

    await agent.decide({ conversationId: 'single', decisions: [{ toolCallId: 'q4', approved: false }] });
    const sent = toolMessages(model.requests[1]!.messages);
    expect(sent.map((message) => message.name)).toEqual(['mcp_query', 'mcp_query', 'mcp_query', 'mcp_query']);
    expect(JSON.parse(sent[0]!.content)).toEqual({ tool: 'weather_get', arguments: { id: 'shanghai' } });
    expect(sent[1]!.content).toMatch(/invalid arguments for "weather_get": missing required field "id"; unexpected field "city"/);
    expect(sent[2]!.content).toMatch(/server "backoffice" has no tool "weather_lookup"\. Close matches: backoffice\/weather_/);
    expect(sent[3]!.content).toMatch(/the user declined this call/);
    expect(historyViolations(model.requests[1]!.messages)).toEqual([]);
  });

  it('makes the first request far smaller with search and single than with all (bytes of tools)', async () => {
    const bytes: Record<string, number> = {};
    for (const routing of ['all', 'search', 'single']) {
      const { agent, model } = agentWith(`routing: ${routing}`, [textReply('ok')]);
      await agent.ask({ conversationId: `size-${routing}`, message: 'hi' });
      bytes[routing] = toolsBytes(model.requests[0]!.tools);
    }
    expect(bytes.search).toBeLessThan(bytes.all! / 50);
    expect(bytes.single).toBeLessThan(bytes.all! / 3);
  });
});
