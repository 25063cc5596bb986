/**
 * toolPolicy.cedar through npm start: the shop's policies (test/fixtures/shop-policies.cedar) over
 * the shop MCP server on stdio, callers told apart as API Gateway's authorizer would (AUTH_MODE
 * cognito; LOCAL_CALLER_HEADER and LOCAL_CLAIMS_HEADER stand in for it), and a scripted model whose
 * every request is checked. A policy file that does not parse stops npm start with Cedar's message
 * at its line and column.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serversPerTest } from '../support/configured-local-server.ts';
import { startLocalServer } from '../support/local-server.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';
import { completionBodies, toolAnswers, toolNames, wireViolations } from '../support/wire-requests.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const POLICIES = fileURLToPath(new URL('../fixtures/shop-policies.cedar', import.meta.url));
const SHOP_SERVER = fileURLToPath(new URL('../fixtures/shop-server.ts', import.meta.url));
const SHOP = `mcpServers:\n  shop: { command: node, args: [${JSON.stringify(SHOP_SERVER)}] }\nmodel: { maxRetries: 0 }\n`;
const CALLER = 'x-caller';
const CLAIMS = 'x-claims';

describe('toolPolicy.cedar through npm start', () => {
  const servers = serversPerTest();

  it('lets a support agent refund 40 EUR, refuses 400 EUR with the reason the model reads, and shows the policy set on /health', async () => {
    // Prepare
    const model = await servers.model([
      toolCallsReply([
        { id: 'small', name: 'refund', arguments: { orderNo: 'F1', amount: 40 } },
        { id: 'large', name: 'refund', arguments: { orderNo: 'F2', amount: 400 } },
      ]),
      textReply('Refunded F1; F2 needs a manager.'),
    ]);
    const local = await servers.local(`toolPolicy: { cedar: ${JSON.stringify(POLICIES)} }\n${SHOP}`, model, { AUTH_MODE: 'cognito', LOCAL_CALLER_HEADER: CALLER, LOCAL_CLAIMS_HEADER: CLAIMS });

    // Act
    const response = await fetch(`${local.server.url}/conversations/refunds/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [CALLER]: 'alice', [CLAIMS]: JSON.stringify({ 'cognito:groups': 'support' }) },
      body: JSON.stringify({ message: 'Refund F1 (40) and F2 (400)' }),
    });
    const result = await response.json();

    // Assess: what the model was offered and read, and what the caller sees.
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
    expect(toolNames(bodies[0]!).sort()).toEqual(['getOrder', 'refund']);
    const answers = toolAnswers(bodies[1]!).map((message) => [message.tool_call_id, message.content]);
    expect(answers).toEqual([
      ['small', JSON.stringify({ ran: 'refund', arguments: { orderNo: 'F1', amount: 40 } })],
      ['large', 'Not executed: the tool policy does not allow this call of "refund" for this user: no policy permits calling refund for this caller. Do not repeat it with the same arguments; tell the user what was refused and why.'],
    ]);
    expect(response.status).toBe(200);
    expect(result).toMatchObject({ stopReason: 'completed', toolCalls: [{ id: 'small', ok: true, policy: { decision: 'allow', policyIds: ['support-refunds'] } }, { id: 'large', ok: false, policy: { decision: 'deny' } }] });
    expect(local.server.output()).toMatch(/"message":"tool call decided by policy".*"decision":"deny"/);
    const health = (await (await fetch(`${local.server.url}/health`, { headers: { [CALLER]: 'alice' } })).json()) as { toolPolicy?: unknown };
    expect(health.toolPolicy).toEqual({ engine: 'cedar', hash: expect.stringMatching(/^[0-9a-f]{64}$/), policies: 6 });
  }, 90_000);

  it('decides a tool call the model wrote as text (model.textToolCalls) like any other', async () => {
    // Prepare
    const model = await servers.model([
      textReply('<tool_call>{"name": "refund", "arguments": {"orderNo": "G1", "amount": 500}}</tool_call>'),
      textReply('A refund of 500 needs a manager.'),
    ]);
    const local = await servers.local(`toolPolicy: { cedar: ${JSON.stringify(POLICIES)} }\n${SHOP.replace('model: { maxRetries: 0 }', 'model: { maxRetries: 0, textToolCalls: true }')}`, model, { AUTH_MODE: 'cognito', LOCAL_CALLER_HEADER: CALLER, LOCAL_CLAIMS_HEADER: CLAIMS });

    // Act
    const response = await fetch(`${local.server.url}/conversations/text-calls/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [CALLER]: 'alice', [CLAIMS]: JSON.stringify({ 'cognito:groups': 'support' }) },
      body: JSON.stringify({ message: 'Refund G1 (500)' }),
    });
    const result = await response.json();

    // Assess
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(2);
    expect(wireViolations(bodies[1]!)).toEqual([]);
    expect(toolAnswers(bodies[1]!).map((message) => message.content)).toEqual([expect.stringMatching(/^Not executed: the tool policy does not allow this call of "refund" for this user/)]);
    expect(result).toMatchObject({ stopReason: 'completed', reply: 'A refund of 500 needs a manager.', toolCalls: [{ name: 'refund', ok: false, arguments: { orderNo: 'G1', amount: 500 }, policy: { decision: 'deny' } }] });
  }, 90_000);

  it('does not start with a policy file that does not parse, and says where', async () => {
    const folder = temporaryFolder('broken-policy-');
    writeFileSync(path.join(folder, 'policies.cedar'), '@id("ok")\npermit(principal, action, resource);\n\n@id("broken")\nforbid(principal, action, resource) when { resource.name == };\n');
    writeFileSync(path.join(folder, 'agent.yml'), `toolPolicy: { cedar: ./policies.cedar }\n${SHOP}`);

    const start = startLocalServer({ AGENT_CONFIG: path.join(folder, 'agent.yml'), LLM_MODEL: 'demo', LOCAL_DATA_DIR: path.join(folder, 'data') });

    await expect(start).rejects.toThrow(/exited with 1 before listening:[\s\S]*policies\.cedar:5:61: failed to parse policies from string: unexpected token `}`/);
  }, 60_000);
});
