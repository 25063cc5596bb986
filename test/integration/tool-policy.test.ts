/**
 * The tool policy (agent.yml toolPolicy.cedar) with real Cedar policies (test/fixtures/
 * shop-policies.cedar), a real MCP server (test/fixtures/shop-server.ts) and a scripted model that
 * sees what the policy answered: amounts in the arguments, groups in the caller's claims, approval
 * by a policy's annotation, a routed call, a built-in tool, and a policy file that is broken.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { buildAgent } from '../../lib/build-agent.ts';
import { loadConfig, parseConfig } from '../../lib/config/load.ts';
import { ConfigError } from '../../lib/core/errors.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ToolMessage } from '../../lib/core/messages.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { createShopServer } from '../fixtures/shop-server.ts';
import { gatewayOptions } from '../support/mcp-servers.ts';
import { createStreamingHttpHandler } from '../../lib/front-doors/handlers.ts';
import { isEventStreamResponse } from '../../lib/http/event-stream.ts';
import { fromApiGatewayEvent, type ApiGatewayProxyEvent } from '../../lib/http/lambda/api-gateway.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const POLICIES = fileURLToPath(new URL('../fixtures/shop-policies.cedar', import.meta.url));
const SUPPORT = { owner: 'alice', claims: { 'cognito:groups': 'support' } };
const MANAGER = { owner: 'bob', claims: { 'cognito:groups': 'managers,support' } };
const PLANNER = { owner: 'carol', claims: { groups: ['planners'] } };

let gateway: ToolGateway;
beforeAll(async () => {
  gateway = createMcpGateway(gatewayOptions([{ name: 'shop', type: 'in-memory', connect: (transport) => createShopServer().connect(transport) }]));
  expect(await gateway.listTools()).toHaveLength(3);
});
afterAll(async () => {
  await gateway?.close();
});

/** An agent.yml in a folder of its own, beside a copy of the policies: the path is relative to it. */
function configFile(yaml: string, policies?: string): string {
  const folder = temporaryFolder('tool-policy-');
  writeFileSync(path.join(folder, 'policies.cedar'), policies ?? '');
  writeFileSync(path.join(folder, 'agent.yml'), `maxRounds: 4\ntoolPolicy: { cedar: ./policies.cedar }\nmcpServers:\n  shop: { command: unused }\n${yaml}`);
  return path.join(folder, 'agent.yml');
}

async function agentWith(script: ScriptedStep[], yaml = '') {
  const { readFileSync } = await import('node:fs');
  const config = loadConfig({ path: configFile(yaml, readFileSync(POLICIES, 'utf8')), environment: {} });
  const model = createScriptedModel(script);
  const agent = buildAgent(config, { model, gateway, store: createMemoryConversationStore(), logger: silentLogger });
  return { agent, model };
}

const toolMessages = (request: ModelRequest | undefined) => (request?.messages ?? []).filter((message): message is ToolMessage => message.role === 'tool');
const offered = (request: ModelRequest | undefined) => (request?.tools ?? []).map((tool) => tool.name).sort();

describe('toolPolicy.cedar', () => {
  it('lets support refund up to 100 EUR and refuses more, and the model reads why', async () => {
    const { agent, model } = await agentWith([
      toolCallsReply([
        { id: 'small', name: 'refund', arguments: { orderNo: 'A1', amount: 99.5 } },
        { id: 'large', name: 'refund', arguments: { orderNo: 'A2', amount: 150 } },
      ]),
      (request) => {
        // The model's next request carries both answers: the refund that ran and the refusal.
        const [small, large] = toolMessages(request);
        expect(JSON.parse(small!.content)).toEqual({ ran: 'refund', arguments: { orderNo: 'A1', amount: 99.5 } });
        expect(large!.content).toBe('Not executed: the tool policy does not allow this call of "refund" for this user: no policy permits calling refund for this caller. Do not repeat it with the same arguments; tell the user what was refused and why.');
        return textReply('Refunded 99.50; 150 needs a manager.');
      },
    ]);

    const result = await agent.ask({ conversationId: 'support', message: 'Refund A1 and A2', ...SUPPORT });

    expect(offered(model.requests[0])).toEqual(['getOrder', 'refund']);
    expect(result.stopReason).toBe('completed');
    expect(result.toolCalls).toMatchObject([
      { id: 'small', name: 'refund', ok: true, policy: { decision: 'allow', policyIds: ['support-refunds'] } },
      { id: 'large', name: 'refund', ok: false, policy: { decision: 'deny', policyIds: [] } },
    ]);
    // The turn's trace shows both decisions: the refund that ran, and the one refused.
    const trace = await agent.getTurnTrace({ conversationId: 'support', owner: 'alice' }, 1);
    expect(trace.toolCalls).toEqual([
      { id: 'small', name: 'refund', ok: true, durationMs: expect.any(Number), policy: { decision: 'allow', policyIds: ['support-refunds'] } },
      { id: 'large', name: 'refund', ok: false, durationMs: 0, policy: { decision: 'deny', policyIds: [] } },
    ]);
  });

  it('makes a manager’s refund wait for approval (@approval("required")), runs it once approved, and forbids one above the ceiling with the policy’s reason', async () => {
    const { agent, model } = await agentWith([
      toolCallsReply([
        { id: 'big', name: 'refund', arguments: { orderNo: 'B1', amount: 2500 } },
        { id: 'huge', name: 'refund', arguments: { orderNo: 'B2', amount: 25000 } },
      ]),
      (request) => {
        const [big, huge] = toolMessages(request);
        expect(JSON.parse(big!.content)).toEqual({ ran: 'refund', arguments: { orderNo: 'B1', amount: 2500 } });
        expect(huge!.content).toContain('refunds above 10000 EUR are never made through the agent; ask finance');
        return textReply('Done.');
      },
    ]);

    const paused = await agent.ask({ conversationId: 'manager', message: 'Refund B1 and B2', ...MANAGER });

    expect(paused.stopReason).toBe('approval_required');
    expect(paused.pendingApprovals).toMatchObject([{ toolCallId: 'big', name: 'refund', arguments: { amount: 2500 } }]);
    expect(paused.toolCalls).toMatchObject([{ id: 'huge', ok: false, policy: { decision: 'deny', policyIds: ['refund-ceiling'] } }]);
    expect(model.requests).toHaveLength(1);

    const resumed = await agent.decide({ conversationId: 'manager', decisions: [{ toolCallId: 'big', approved: true }], ...MANAGER });

    expect(resumed.stopReason).toBe('completed');
    expect(resumed.toolCalls).toMatchObject([
      { id: 'huge', ok: false },
      { id: 'big', ok: true, policy: { decision: 'allow', policyIds: ['manager-refunds'], needsApproval: true } },
    ]);
  });

  it('does not offer a tool that no policy could permit for the caller, and answers a call of it as unknown', async () => {
    const { agent, model } = await agentWith([
      toolCallsReply([{ id: 'r', name: 'refund', arguments: { orderNo: 'C1', amount: 1 } }]),
      (request) => {
        expect(toolMessages(request)[0]!.content).toMatch(/^Error: there is no tool named "refund"\. Available tools: getOrder, search_tools\./);
        return textReply('I cannot refund.');
      },
    ]);

    const result = await agent.ask({ conversationId: 'nobody', message: 'Refund C1', owner: 'dave', claims: { 'cognito:groups': 'marketing' } });

    // deleteCustomer: no permit at all; refund: every permit needs a group dave does not have.
    expect(offered(model.requests[0])).toEqual(['getOrder']);
    expect(result.toolCalls).toMatchObject([{ id: 'r', ok: false }]);
  });

  it('decides a routed call (mcp_query) as the tool it stands for', async () => {
    const { agent, model } = await agentWith([
      toolCallsReply([
        { id: 'q1', name: 'mcp_query', arguments: { server: 'shop', tool: 'refund', arguments: { orderNo: 'D1', amount: 500 } } },
        { id: 'q2', name: 'mcp_query', arguments: { server: 'shop', tool: 'refund', arguments: { orderNo: 'D2', amount: 20 } } },
      ]),
      (request) => {
        const [refused, ran] = toolMessages(request);
        expect(refused!.content).toMatch(/^Not executed: the tool policy does not allow this call of "refund"/);
        expect(JSON.parse(ran!.content)).toEqual({ ran: 'refund', arguments: { orderNo: 'D2', amount: 20 } });
        return textReply('Refunded D2 only.');
      },
    ], 'tools: { routing: single }\n');

    const result = await agent.ask({ conversationId: 'routed', message: 'Refund D1 and D2', ...SUPPORT });

    expect(offered(model.requests[0])).toEqual(['mcp_query']);
    expect(result.toolCalls).toMatchObject([
      { id: 'q1', name: 'refund', ok: false, policy: { decision: 'deny' } },
      { id: 'q2', name: 'refund', ok: true, policy: { decision: 'allow', policyIds: ['support-refunds'] } },
    ]);
  });

  it('decides built-in tools too: write_todos is offered to planners only', async () => {
    const todos = { todos: [{ content: 'Check the order', status: 'pending' }] };
    const { agent, model } = await agentWith([
      textReply('Nothing to plan.'),
      toolCallsReply([{ id: 't', name: 'write_todos', arguments: todos }]),
      textReply('Planned.'),
    ], 'todoList: true\n');

    await agent.ask({ conversationId: 'no-plans', message: 'Plan', ...SUPPORT });
    const planned = await agent.ask({ conversationId: 'plans', message: 'Plan', ...PLANNER });

    expect(offered(model.requests[0])).toEqual(['getOrder', 'refund']);
    expect(offered(model.requests[1])).toEqual(['getOrder', 'write_todos']);
    expect(planned.toolCalls).toMatchObject([{ id: 't', name: 'write_todos', ok: true, policy: { decision: 'allow', policyIds: ['read-only-tools'] } }]);
  });

  it('reads the policy paths from agent.yml’s folder, and refuses a schema without policies', () => {
    const file = configFile('');

    expect(loadConfig({ path: file, environment: {} }).toolPolicy).toEqual({ cedar: path.join(path.dirname(file), 'policies.cedar') });
    expect(() => parseConfig('toolPolicy: { schema: ./shop.cedarschema }', { source: 'agent.yml', environment: {} })).toThrow(/toolPolicy\.schema: needs toolPolicy\.cedar/);
  });

  it('shows the policy set’s hash on /health', async () => {
    const { agent } = await agentWith([]);

    const health = await agent.health();

    expect(health.toolPolicy).toEqual({ engine: 'cedar', hash: expect.stringMatching(/^[0-9a-f]{64}$/), policies: 6 });
  });

  it('stops the start with Cedar’s message at the line and column of a policy that does not parse', () => {
    const config = loadConfig({ path: configFile('', 'permit(principal, action, resource);\n\nforbid(principal, action, resource)\nwhen { context.arguments.amount > };\n'), environment: {} });

    const start = () => buildAgent(config, { gateway, store: createMemoryConversationStore(), logger: silentLogger });

    expect(start).toThrow(ConfigError);
    expect(start).toThrow(/policies\.cedar:4:35: failed to parse policies from string: unexpected token `}`/);
  });

  it('stops the start when the policies do not validate against toolPolicy.schema, saying where', async () => {
    const { readFileSync } = await import('node:fs');
    const file = configFile('', readFileSync(POLICIES, 'utf8'));
    const schema = [
      'entity User { groups: Set<String> };',
      'entity Anonymous { groups: Set<String> };',
      'entity Tool { name: String, server: String, builtIn: Bool, readOnly: Bool, destructive: Bool };',
      'action CallTool appliesTo { principal: [User, Anonymous], resource: Tool, context: { arguments: { amount?: decimal } } };',
    ].join('\n');
    writeFileSync(path.join(path.dirname(file), 'policies.cedarschema'), schema);
    writeFileSync(file, readFileSync(file, 'utf8').replace('toolPolicy: { cedar: ./policies.cedar }', 'toolPolicy: { cedar: ./policies.cedar, schema: ./policies.cedarschema }'));
    const config = loadConfig({ path: file, environment: {} });

    const start = () => buildAgent(config, { gateway, store: createMemoryConversationStore(), logger: silentLogger });

    // support-refunds reads context.arguments.amount, which the schema makes optional, without `has`.
    expect(start).toThrow(/policies\.cedar does not validate against .*policies\.cedarschema:\n  - .*policies\.cedar:13:3: for policy `policy1`, unable to guarantee safety of access to optional attribute `arguments\.amount`/);
  });
});

describe('the caller’s claims, through the door', () => {
  /** API Gateway's event for a Cognito user pool caller, with these verified claims and a header the client sent. */
  function cognitoEvent(claims: Record<string, string>, message: string): ApiGatewayProxyEvent {
    return {
      httpMethod: 'POST',
      path: '/conversations/door-1/messages',
      // A client may send whatever headers it likes: none of them is a claim.
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-claims': '{"cognito:groups":"managers"}' },
      queryStringParameters: null,
      body: JSON.stringify({ message }),
      isBase64Encoded: false,
      requestContext: { authorizer: { claims: { sub: 'user-1', ...claims } } },
    };
  }

  async function ask(claims: Record<string, string>, amount: number) {
    const { agent, model } = await agentWith([toolCallsReply([{ id: 'r', name: 'refund', arguments: { orderNo: 'E1', amount } }]), textReply('ok')]);
    const handle = createStreamingHttpHandler({ agent, logger: silentLogger, maxBodyBytes: 1_000_000, heartbeatMs: 1_000 });
    const request = fromApiGatewayEvent(cognitoEvent(claims, 'Refund E1'), lambdaContext({ remainingMs: 60_000 }), { authMode: 'cognito', ownerFrom: 'role-session' });
    const response = await handle(request);
    if (isEventStreamResponse(response)) throw new Error('expected JSON');
    return { status: response.statusCode, body: JSON.parse(response.body), model, request };
  }

  it('carries the user pool’s groups to the policy: a support agent’s refund runs', async () => {
    const { status, body, request } = await ask({ 'cognito:groups': 'support' }, 40);

    expect(request.claims).toEqual({ sub: 'user-1', 'cognito:groups': 'support' });
    expect(status).toBe(200);
    expect(body.toolCalls).toMatchObject([{ id: 'r', ok: true, policy: { decision: 'allow', policyIds: ['support-refunds'] } }]);
  });

  it('never takes a claim from a header: without verified groups the refund is not even offered', async () => {
    const { body, model } = await ask({}, 40);

    expect(offered(model.requests[0])).toEqual(['getOrder']);
    expect(body.toolCalls).toMatchObject([{ id: 'r', ok: false }]);
  });
});
