/**
 * agent.connect(): what a Lambda function calls while it loads, so its MCP servers connect and list
 * their tools then rather than on the first turn's path. It lists the tools as a question would and
 * never rejects: a server that fails is retried at the question, as before.
 */
import { describe, expect, it } from 'vitest';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { agentFixture, testGateway } from '../support/agent-fixture.ts';

describe('agent.connect', () => {
  it('lists the tools of every server now, through the gateway a question would use', async () => {
    const gateway = testGateway();
    let listings = 0;
    const counting: ToolGateway = { ...gateway, listTools: () => ((listings += 1), gateway.listTools()) };
    const { agent } = agentFixture(null, { gateway: counting });

    await agent.connect();

    expect(listings).toBe(1);
  });

  it('resolves when the servers cannot be reached: the first question tries again', async () => {
    const failing: ToolGateway = { ...testGateway(), listTools: () => Promise.reject(new Error('the gateway is closed')) };
    const { agent } = agentFixture(null, { gateway: failing });

    await expect(agent.connect()).resolves.toBeUndefined();
  });
});
