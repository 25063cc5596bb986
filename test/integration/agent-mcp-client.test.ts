/**
 * What MCP servers ask of the agent, end to end in one process: buildAgent with server-everything
 * over stdio (a server no one here wrote), the OpenAI adapter talking to the scripted model server
 * over HTTP, and an in-memory store. Elicitation under `ask` pauses the turn and the call runs
 * again with the answer; sampling goes to the turn's model (approved first under `sampling: ask`);
 * read_resource reads the links tools return; images of results reach a model that takes them.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { buildAgent } from '../../lib/build-agent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { historyViolations } from '../../lib/core/history.ts';
import type { ConversationStore } from '../../lib/core/ports/conversation-store.ts';
import type { Agent } from '../../lib/agent/agent-api.ts';
import type { LoopEvent } from '../../lib/agent/loop/loop-events.ts';
import { EVERYTHING_ENTRY, PROJECT_ROOT, startFixtureOverHttp, stopProcess } from '../support/mcp-servers.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer, type ScriptStep } from '../support/scripted-openai-server.ts';

type WireMessage = { role: string; tool_call_id?: string; content?: unknown };
const sentMessages = (model: ScriptedOpenAIServer, index: number) => (model.requests[index]!.body as { messages: WireMessage[] }).messages;
const toolAnswer = (model: ScriptedOpenAIServer, index: number, id: string) => sentMessages(model, index).find((message) => message.tool_call_id === id)?.content as string | undefined;

let model: ScriptedOpenAIServer | undefined;
let agent: Agent | undefined;

afterEach(async () => {
  await agent?.close();
  await model?.close();
  agent = undefined;
  model = undefined;
});

const EVERYTHING = ['  everything:', '    command: node', `    args: [${JSON.stringify(EVERYTHING_ENTRY)}, stdio]`];

/** An agent over server-everything (or `server`) with `settings` as the server's extra agent.yml lines. */
async function start(script: ScriptStep[], settings: string, extra = '', modelSettings = '', server = EVERYTHING, store: ConversationStore = createMemoryConversationStore()) {
  model = await startScriptedOpenAIServer(script);
  const yaml = [
    `model: { name: gpt-4-turbo, baseURL: "${model.baseURL}", apiKey: sk-test${modelSettings} }`,
    'tools: { callTimeoutSeconds: 60, connectTimeoutSeconds: 30 }',
    extra,
    'mcpServers:',
    ...server,
    ...settings.split('\n').filter(Boolean).map((line) => `    ${line}`),
  ].join('\n');
  agent = buildAgent(parseConfig(yaml, { source: '/tmp/agent.yml', environment: {} }), { store, logger: recordingLogger() });
  return { agent, model, store };
}

describe('elicitation under the ask policy', () => {
  it('pauses the turn with the question, and runs the call again with the answer', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_form', name: 'trigger-elicitation-request', arguments: {} }]),
      textReply('Thanks, Ada.'),
    ], 'elicitation: ask');
    const events: LoopEvent[] = [];

    const paused = await agent.ask({ conversationId: 'form-1', message: 'Fill in the form', onEvent: (event) => events.push(event) });

    expect(paused).toMatchObject({
      stopReason: 'input_required',
      rounds: 1,
      pendingElicitations: [{ toolCallId: 'call_form', name: 'trigger-elicitation-request', server: 'everything', message: 'Please provide inputs for the following fields:', requestedSchema: { type: 'object', required: ['name'] } }],
      toolCalls: [],
    });
    expect(paused.pendingApprovals).toBeUndefined();
    expect(paused.reply).toContain('Please provide inputs for the following fields');
    expect(events.filter((event) => event.type === 'elicitation-required')).toHaveLength(1);
    // Nothing was sent to the model after the question: the call waits, unanswered.
    expect(model.requests).toHaveLength(1);
    const view = await agent.getConversation({ conversationId: 'form-1' });
    expect(view.turns[0]).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ toolCallId: 'call_form' }] });
    expect(view.turns[0]!.completedAt).toBeUndefined();

    const resumed = await agent.decide({ conversationId: 'form-1', decisions: [{ toolCallId: 'call_form', answer: { action: 'accept', content: { name: 'Ada Lovelace', check: true } } }] });

    expect(resumed).toMatchObject({ stopReason: 'completed', reply: 'Thanks, Ada.', rounds: 2, toolCalls: [{ id: 'call_form', name: 'trigger-elicitation-request', ok: true }] });
    const answer = toolAnswer(model, 1, 'call_form');
    expect(answer).toContain('User provided the requested information');
    expect(answer).toContain('Ada Lovelace');
    const stored = await agent.getConversation({ conversationId: 'form-1' });
    expect(historyViolations(stored.turns[0]!.messages)).toEqual([]);
  }, 120_000);

  it('hands the server a decline when the person declines', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_form', name: 'trigger-elicitation-request', arguments: {} }]),
      textReply('Understood.'),
    ], 'elicitation: ask');
    await agent.ask({ conversationId: 'form-2', message: 'Fill in the form' });

    const resumed = await agent.decide({ conversationId: 'form-2', decisions: [{ toolCallId: 'call_form', answer: { action: 'decline' } }] });

    expect(resumed.stopReason).toBe('completed');
    expect(toolAnswer(model, 1, 'call_form')).toContain('User declined to provide the requested information');
  }, 120_000);

  it('refuses an answer that does not fit the form, or an approval where an answer is due, and keeps the turn paused', async () => {
    const { agent } = await start([toolCallsReply([{ id: 'call_form', name: 'trigger-elicitation-request', arguments: {} }])], 'elicitation: ask');
    await agent.ask({ conversationId: 'form-3', message: 'Fill in the form' });

    await expect(agent.decide({ conversationId: 'form-3', decisions: [{ toolCallId: 'call_form', answer: { action: 'accept', content: { check: true } } }] }))
      .rejects.toMatchObject({ code: 'invalid_answer', message: expect.stringContaining('missing required field "name"') });
    await expect(agent.decide({ conversationId: 'form-3', decisions: [{ toolCallId: 'call_form', approved: true }] }))
      .rejects.toMatchObject({ code: 'invalid_decisions' });
    const view = await agent.getConversation({ conversationId: 'form-3' });
    expect(view.turns[0]).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ toolCallId: 'call_form' }] });
  }, 120_000);

  it('answers the waiting call as unanswered when a new message comes instead', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_form', name: 'trigger-elicitation-request', arguments: {} }]),
      textReply('Something else, then.'),
    ], 'elicitation: ask');
    await agent.ask({ conversationId: 'form-4', message: 'Fill in the form' });

    const next = await agent.ask({ conversationId: 'form-4', message: 'Never mind' });

    expect(next).toMatchObject({ turn: 2, stopReason: 'completed' });
    expect(toolAnswer(model, 1, 'call_form')).toMatch(/^Not completed: the tool asked the user a question and a new message came instead of an answer/);
    const view = await agent.getConversation({ conversationId: 'form-4' });
    expect(view.turns.map((turn) => turn.stopReason)).toEqual(['input_required', 'completed']);
    expect(view.turns[0]!.pendingElicitations).toBeUndefined();
  }, 120_000);
});

describe('elicitation under the ask policy, from a server on protocol 2026-07-28', () => {
  let fixture: { url: string; process: ChildProcess } | undefined;

  afterEach(async () => {
    await stopProcess(fixture?.process);
    fixture = undefined;
  });

  it('pauses on its input_required result, and calls it again with the answer', async () => {
    fixture = await startFixtureOverHttp(`${PROJECT_ROOT}test/fixtures/stateless-server.ts`, { LEGACY: 'reject' });
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_confirm', name: 'confirm', arguments: {} }]),
      textReply('Confirmed.'),
    ], 'elicitation: ask', '', '', ['  modern:', '    type: http', `    url: ${fixture.url}`]);

    const paused = await agent.ask({ conversationId: 'modern-1', message: 'Go ahead' });

    expect(paused).toMatchObject({ stopReason: 'input_required', pendingElicitations: [{ toolCallId: 'call_confirm', server: 'modern', message: 'Proceed?', requestedSchema: { properties: { ok: { type: 'boolean' } } } }] });
    const resumed = await agent.decide({ conversationId: 'modern-1', decisions: [{ toolCallId: 'call_confirm', answer: { action: 'accept', content: { ok: true } } }] });
    expect(resumed).toMatchObject({ stopReason: 'completed', reply: 'Confirmed.' });
    expect(toolAnswer(model, 1, 'call_confirm')).toBe('confirmed: true');
  }, 120_000);
});

describe('sampling', () => {
  it('answers the server with the turn’s model, counted in the turn’s rounds and usage', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_sample', name: 'trigger-sampling-request', arguments: { prompt: 'Name a colour', maxTokens: 50 } }]),
      textReply('Teal.'),
      textReply('The server’s model said teal.'),
    ], 'sampling: true');
    const events: LoopEvent[] = [];

    const result = await agent.ask({ conversationId: 'sample-1', message: 'Ask the server to sample', onEvent: (event) => events.push(event) });

    expect(result).toMatchObject({ stopReason: 'completed', reply: 'The server’s model said teal.', rounds: 3, toolCalls: [{ id: 'call_sample', ok: true }] });
    // Three model calls: the tool call, the sampling, the answer (the scripted usage of each).
    const turnUsage = { promptTokens: 188 + 192 + 192, completionTokens: 16 + 171 + 171 };
    // The first turn: the conversation's totals are the turn's, the sampling call's included.
    expect(result.usage).toEqual({ ...turnUsage, conversation: turnUsage });
    const sampling = model.requests[1]!.body as { messages: WireMessage[]; tools?: unknown; max_tokens?: number };
    expect(sampling.messages).toEqual([
      { role: 'system', content: 'You are a helpful test server.' },
      { role: 'user', content: expect.stringContaining('Name a colour') },
    ]);
    expect(sampling.tools).toBeUndefined();
    expect(sampling.max_tokens).toBe(50);
    expect(toolAnswer(model, 2, 'call_sample')).toContain('Teal.');
    expect(events).toContainEqual({ type: 'extension', name: 'sampling', data: { toolCallId: 'call_sample', server: 'everything', usage: { promptTokens: 192, completionTokens: 171 } } });
  }, 120_000);

  it('counts the sampling call’s tokens against the turn’s budget (limits.tokensPerTurn)', async () => {
    // The tool call costs 204 tokens, the sampling 363: together over 400, so the answer is never asked for.
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_sample', name: 'trigger-sampling-request', arguments: { prompt: 'Name a colour', maxTokens: 50 } }]),
      textReply('Teal.'),
      textReply('Never sent.'),
    ], 'sampling: true', 'limits: { tokensPerTurn: 400 }');

    const result = await agent.ask({ conversationId: 'sample-budget', message: 'Ask the server to sample' });

    expect(result).toMatchObject({ stopReason: 'budget_exhausted', budget: { limit: 'tokensPerTurn', allowedTokens: 400, usedTokens: 567 } });
    expect(model.requests).toHaveLength(2);
    expect(result.toolCalls).toMatchObject([{ id: 'call_sample', ok: true }]);
    expect(historyViolations((await agent.getConversation({ conversationId: 'sample-budget' })).turns[0]!.messages)).toEqual([]);
  }, 120_000);

  it('refuses a request when the turn has no round left for it', async () => {
    const { agent, model } = await start([
      toolCallsReply([
        { id: 'call_first', name: 'trigger-sampling-request', arguments: { prompt: 'Name a colour', maxTokens: 50 } },
        { id: 'call_second', name: 'trigger-sampling-request', arguments: { prompt: 'Name a fruit', maxTokens: 50 } },
      ]),
      textReply('Teal.'),
    ], 'sampling: true', 'maxRounds: 2');

    // Round 1 is the reply; the first sampling takes round 2, the last; the second has none left.
    const result = await agent.ask({ conversationId: 'sample-2', message: 'Sample twice' });

    expect(result).toMatchObject({ stopReason: 'max_rounds', rounds: 2 });
    expect(model.requests).toHaveLength(2);
    const answers = result.toolCalls.map((call) => call.ok);
    expect(answers.sort()).toEqual([false, true]);
    const stored = (await agent.getConversation({ conversationId: 'sample-2' })).turns[0]!.messages;
    const texts = stored.flatMap((message) => (message.role === 'tool' ? [message.content] : []));
    expect(texts.some((text) => text.includes('Teal.'))).toBe(true);
    expect(texts.some((text) => text.includes('used all its model rounds (maxRounds)'))).toBe(true);
  }, 120_000);

  it('under sampling: ask, pauses for approval with the request, and answers it once approved', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_sample', name: 'trigger-sampling-request', arguments: { prompt: 'Name a colour', maxTokens: 50 } }]),
      textReply('Teal.'),
      textReply('Done.'),
    ], 'sampling: ask');

    const paused = await agent.ask({ conversationId: 'sample-3', message: 'Sample' });

    expect(paused).toMatchObject({
      stopReason: 'approval_required',
      rounds: 1,
      pendingApprovals: [{ toolCallId: 'call_sample', server: 'everything', sampling: { systemPrompt: 'You are a helpful test server.', maxTokens: 50, messages: [{ role: 'user', text: expect.stringContaining('Name a colour') }] } }],
    });
    expect(model.requests).toHaveLength(1);

    const resumed = await agent.decide({ conversationId: 'sample-3', decisions: [{ toolCallId: 'call_sample', approved: true }] });

    expect(resumed).toMatchObject({ stopReason: 'completed', reply: 'Done.', rounds: 3 });
    expect(toolAnswer(model, 2, 'call_sample')).toContain('Teal.');
  }, 120_000);

  it('under sampling: ask, answers the call as declined without running it again', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_sample', name: 'trigger-sampling-request', arguments: { prompt: 'Name a colour', maxTokens: 50 } }]),
      textReply('Fine.'),
    ], 'sampling: ask');
    await agent.ask({ conversationId: 'sample-4', message: 'Sample' });

    const resumed = await agent.decide({ conversationId: 'sample-4', decisions: [{ toolCallId: 'call_sample', approved: false, reason: 'no model use' }] });

    expect(resumed).toMatchObject({ stopReason: 'completed', rounds: 2 });
    expect(toolAnswer(model, 1, 'call_sample')).toMatch(/^Not completed: the tool asked to use the model \(MCP sampling\) and the user declined \(reason: no model use\)/);
  }, 120_000);
});

describe('read_resource', () => {
  it('reads a resource link a tool returned, from the server that returned it', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_links', name: 'get-resource-links', arguments: { count: 2 } }]),
      toolCallsReply([{ id: 'call_read', name: 'read_resource', arguments: { uri: 'demo://resource/dynamic/text/2' } }]),
      textReply('Read it.'),
    ], 'readResources: true');

    const result = await agent.ask({ conversationId: 'read-1', message: 'Read the second link' });

    expect(result).toMatchObject({ stopReason: 'completed', toolCalls: [{ name: 'get-resource-links', ok: true }, { name: 'read_resource', ok: true }] });
    expect(toolAnswer(model, 1, 'call_links')).toContain('<demo://resource/dynamic/text/2>');
    expect(toolAnswer(model, 2, 'call_read')).toContain('Resource 2');
    const offered = (model.requests[0]!.body as { tools: Array<{ function: { name: string; parameters: { properties: Record<string, unknown> } } }> }).tools;
    expect(offered.find((tool) => tool.function.name === 'read_resource')?.function.parameters.properties).toMatchObject({ server: { enum: ['everything'] } });
  }, 120_000);

  it('refuses a URI outside the server’s patterns', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_read', name: 'read_resource', arguments: { uri: 'demo://resource/dynamic/blob/1', server: 'everything' } }]),
      textReply('Not allowed.'),
    ], 'readResources: ["demo://resource/dynamic/text/*"]');

    await agent.ask({ conversationId: 'read-2', message: 'Read a blob' });

    expect(toolAnswer(model, 1, 'call_read')).toMatch(/not allowed here/);
  }, 120_000);

  it.each([
    ['a dot-dot segment', 'demo://resource/dynamic/text/../blob/1'],
    ['a percent-encoded dot-dot segment', 'demo://resource/dynamic/text/%2e%2E/blob/1'],
    ['a dot segment', 'demo://resource/dynamic/text/./1'],
    ['a backslash dot-dot segment', 'demo://resource/dynamic/text/..\\blob/1'],
  ])('refuses a URI inside the server’s patterns as text but with %s', async (_case, uri) => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_read', name: 'read_resource', arguments: { uri, server: 'everything' } }]),
      textReply('Not allowed.'),
    ], 'readResources: ["demo://resource/dynamic/text/*"]');

    const result = await agent.ask({ conversationId: 'read-dots', message: 'Read it' });

    expect(result.toolCalls).toMatchObject([{ name: 'read_resource', ok: false }]);
    expect(toolAnswer(model, 1, 'call_read')).toMatch(/not allowed here: its path has "\." or "\.\." segments/);
  }, 120_000);

  it('is not offered when no server allows reading', async () => {
    const { agent, model } = await start([textReply('Hello.')], '');

    await agent.ask({ conversationId: 'read-3', message: 'Hi' });

    const offered = (model.requests[0]!.body as { tools: Array<{ function: { name: string } }> }).tools.map((tool) => tool.function.name);
    expect(offered).toContain('echo');
    expect(offered).not.toContain('read_resource');
  }, 120_000);
});

describe('images of tool results (model.imageResults)', () => {
  it('shows the image to the model as a user message after the tool messages, and stores only its description', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_image', name: 'get-tiny-image', arguments: {} }]),
      textReply('A logo.'),
    ], '', '', ', imageResults: true');

    await agent.ask({ conversationId: 'image-1', message: 'Show me the image' });

    const sent = sentMessages(model, 1);
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(sent[3]!.content).toContain('[image: image/png,');
    expect(sent[4]!.content).toEqual([
      { type: 'text', text: expect.stringContaining('get-tiny-image (call_image): 1 image') },
      { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) } },
    ]);
    const stored = (await agent.getConversation({ conversationId: 'image-1' })).turns[0]!.messages;
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(JSON.stringify(stored)).not.toContain('iVBORw0KGgo');
  }, 120_000);

  it('sends no image parts without the setting', async () => {
    const { agent, model } = await start([
      toolCallsReply([{ id: 'call_image', name: 'get-tiny-image', arguments: {} }]),
      textReply('A logo.'),
    ], '');

    await agent.ask({ conversationId: 'image-2', message: 'Show me the image' });

    expect(sentMessages(model, 1).map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  }, 120_000);
});
