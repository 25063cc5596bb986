/**
 * URL-mode elicitation (MCP 2025-11-25), end to end in one process: buildAgent with a real MCP SDK
 * server over stdio (test/fixtures/url-elicitation-server.ts) whose tool asks the user to visit a
 * URL, the OpenAI adapter talking to the scripted model server, and an in-memory store.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { buildAgent } from '../../lib/build-agent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { historyViolations } from '../../lib/core/history.ts';
import type { Agent } from '../../lib/agent/agent-api.ts';
import { PROJECT_ROOT } from '../support/mcp-servers.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer, type ScriptStep } from '../support/scripted-openai-server.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

type WireMessage = { role: string; tool_call_id?: string; content?: unknown };
const toolAnswer = (model: ScriptedOpenAIServer, index: number, id: string) =>
  (model.requests[index]!.body as { messages: WireMessage[] }).messages.find((message) => message.tool_call_id === id)?.content as string | undefined;

const SERVER = `${PROJECT_ROOT}test/fixtures/url-elicitation-server.ts`;
const CALL = toolCallsReply([{ id: 'call_link', name: 'connect_account', arguments: {} }]);

let model: ScriptedOpenAIServer | undefined;
let agent: Agent | undefined;

afterEach(async () => {
  await agent?.close();
  await model?.close();
  agent = undefined;
  model = undefined;
});

async function start(script: ScriptStep[], elicitation: 'ask' | 'decline', consentFile = join(tmpdir(), 'no-consent')) {
  model = await startScriptedOpenAIServer(script);
  const yaml = [
    `model: { name: gpt-4-turbo, baseURL: "${model.baseURL}", apiKey: sk-test }`,
    'tools: { callTimeoutSeconds: 60, connectTimeoutSeconds: 30 }',
    'mcpServers:',
    '  accounts:',
    '    command: node',
    `    args: [${JSON.stringify(SERVER)}]`,
    `    elicitation: ${elicitation}`,
    `    env: { FIXTURE_CONSENT_FILE: ${JSON.stringify(consentFile)} }`,
  ].join('\n');
  agent = buildAgent(parseConfig(yaml, { source: '/tmp/agent.yml', environment: {} }), { store: createMemoryConversationStore(), logger: recordingLogger() });
  return { agent, model };
}

describe('URL-mode elicitation under the ask policy', () => {
  it('pauses the turn with the URL, and on accept runs the call again and the model sees its result', async () => {
    const { agent, model } = await start([CALL, textReply('Your account is linked.')], 'ask');

    const paused = await agent.ask({ conversationId: 'url-1', message: 'Link my account' });

    expect(paused).toMatchObject({
      stopReason: 'input_required',
      pendingElicitations: [{
        toolCallId: 'call_link',
        name: 'connect_account',
        server: 'accounts',
        mode: 'url',
        url: 'https://accounts.example/link?id=link-1',
        elicitationId: 'link-1',
        message: 'Sign in to link your account.',
      }],
    });
    expect(paused.reply).toContain('https://accounts.example/link?id=link-1');
    expect(model.requests).toHaveLength(1);

    const resumed = await agent.decide({ conversationId: 'url-1', decisions: [{ toolCallId: 'call_link', answer: { action: 'accept', content: {} } }] });

    expect(resumed).toMatchObject({ stopReason: 'completed', reply: 'Your account is linked.', toolCalls: [{ id: 'call_link', ok: true }] });
    expect(toolAnswer(model, 1, 'call_link')).toBe('account linked');
    const stored = await agent.getConversation({ conversationId: 'url-1' });
    expect(historyViolations(stored.turns[0]!.messages)).toEqual([]);
  }, 120_000);

  it('tells the model the user declined when the person declines', async () => {
    const { agent, model } = await start([CALL, textReply('Not linked, then.')], 'ask');
    await agent.ask({ conversationId: 'url-2', message: 'Link my account' });

    const resumed = await agent.decide({ conversationId: 'url-2', decisions: [{ toolCallId: 'call_link', answer: { action: 'decline' } }] });

    expect(resumed.stopReason).toBe('completed');
    expect(toolAnswer(model, 1, 'call_link')).toBe('not linked (decline)');
  }, 120_000);

  it('refuses an accept that carries form values for a URL question, and keeps the turn paused', async () => {
    const { agent } = await start([CALL], 'ask');
    await agent.ask({ conversationId: 'url-3', message: 'Link my account' });

    await expect(agent.decide({ conversationId: 'url-3', decisions: [{ toolCallId: 'call_link', answer: { action: 'accept', content: { password: 'x' } } }] }))
      .rejects.toMatchObject({ code: 'invalid_answer' });
    const view = await agent.getConversation({ conversationId: 'url-3' });
    expect(view.turns[0]).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ toolCallId: 'call_link', mode: 'url' }] });
  }, 120_000);
});

describe('URL-mode elicitation under the decline policy', () => {
  it('never pauses: the server is not offered URL elicitation and the call completes', async () => {
    const { agent, model } = await start([CALL, textReply('Cannot link here.')], 'decline');

    const result = await agent.ask({ conversationId: 'url-4', message: 'Link my account' });

    expect(result).toMatchObject({ stopReason: 'completed', reply: 'Cannot link here.' });
    expect(result.pendingElicitations).toBeUndefined();
    expect(toolAnswer(model, 1, 'call_link')).toBe('the client offers no URL elicitation');
  }, 120_000);
});

describe('a tool call failing with -32042 "URL elicitation required" (as AgentCore Gateway does)', () => {
  const INBOX = toolCallsReply([{ id: 'call_inbox', name: 'read_inbox', arguments: {} }]);

  it('pauses with the URL from the error, and runs the call again once the user accepts', async () => {
    const consent = join(temporaryFolder('url-elicitation-'), 'consented');
    const { agent, model } = await start([INBOX, textReply('You have 3 new messages.')], 'ask', consent);

    const paused = await agent.ask({ conversationId: 'gw-1', message: 'Read my inbox' });

    expect(paused).toMatchObject({
      stopReason: 'input_required',
      pendingElicitations: [{ toolCallId: 'call_inbox', server: 'accounts', mode: 'url', url: 'https://gateway.example/consent', elicitationId: 'consent-1', message: 'Allow access to your inbox.' }],
    });
    expect(model.requests).toHaveLength(1);

    writeFileSync(consent, 'yes'); // the user consented on the page
    const resumed = await agent.decide({ conversationId: 'gw-1', decisions: [{ toolCallId: 'call_inbox', answer: { action: 'accept', content: {} } }] });

    expect(resumed).toMatchObject({ stopReason: 'completed', reply: 'You have 3 new messages.' });
    expect(toolAnswer(model, 1, 'call_inbox')).toBe('3 new messages');
  }, 120_000);

  it('tells the model the user declined', async () => {
    const { agent, model } = await start([INBOX, textReply('No access, then.')], 'ask');
    await agent.ask({ conversationId: 'gw-2', message: 'Read my inbox' });

    await agent.decide({ conversationId: 'gw-2', decisions: [{ toolCallId: 'call_inbox', answer: { action: 'decline' } }] });

    expect(toolAnswer(model, 1, 'call_inbox')).toBe('Error: Tool "read_inbox" needs the user to open https://gateway.example/consent (Allow access to your inbox.); the user declined.');
  }, 120_000);

  it('never pauses under the decline policy: the model is told the page is needed', async () => {
    const { agent, model } = await start([INBOX, textReply('Cannot read it here.')], 'decline');

    const result = await agent.ask({ conversationId: 'gw-3', message: 'Read my inbox' });

    expect(result).toMatchObject({ stopReason: 'completed', reply: 'Cannot read it here.' });
    expect(toolAnswer(model, 1, 'call_inbox')).toContain('needs the user to open https://gateway.example/consent');
  }, 120_000);
});
