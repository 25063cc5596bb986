/**
 * The "Writing your own extension" example (docs/strategies.md), as written: an extension with a
 * built-in tool, a beforeModelCall and state in the conversation, passed to buildAgent, with the
 * demo MCP server over stdio and an OpenAI-compatible model (the scripted server over HTTP).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgent, createMemoryConversationStore, loadConfig, type Agent, type AgentExtension, type LoopEvent } from '../../lib/index.ts';
import { DEMO_SERVER } from '../support/configured-local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { completionBodies, systemPromptOf, toolAnswers, toolNames, wireViolations } from '../support/wire-requests.ts';

// As in docs/strategies.md.
const notes: AgentExtension = {
  name: 'notes',
  tools: [
    {
      definition: {
        name: 'save_note',
        description: 'Saves a short note for the rest of this conversation: a preference, an id, a decision.',
        parameters: { type: 'object', properties: { note: { type: 'string', minLength: 1 } }, required: ['note'], additionalProperties: false },
        annotations: { readOnlyHint: true },
      },
      run(args, _call, turn) {
        const saved = [...((turn.state.notes as string[] | undefined) ?? []), String(args.note)].slice(-20);
        turn.state = { notes: saved };
        turn.emit('notes', { notes: saved });
        return { ok: true, text: `Saved. Notes kept: ${saved.length}.` };
      },
    },
  ],
  beforeModelCall(request, turn) {
    const saved = (turn.state.notes as string[] | undefined) ?? [];
    if (saved.length === 0) return;
    return { ...request, systemPrompt: `${request.systemPrompt}\n\n## Notes\n${saved.map((note) => `- ${note}`).join('\n')}` };
  },
  turnEnd: (_result, turn) => ({ notes: turn.state.notes ?? [] }),
  view: (state) => ({ notes: state.notes ?? [] }),
};

describe('an extension of your own, passed to buildAgent', () => {
  let model: ScriptedOpenAIServer;
  let agent: Agent;
  let folder: string;

  beforeAll(async () => {
    model = await startScriptedOpenAIServer([
      toolCallsReply([{ id: 'note_1', name: 'save_note', arguments: { note: 'The user wants temperatures in Fahrenheit.' } }]),
      textReply('Noted.'),
      textReply('Shanghai is 34 °F.'),
    ]);
    folder = mkdtempSync(join(tmpdir(), 'extension-'));
    writeFileSync(join(folder, 'agent.yml'), [
      `model: { name: gpt-4-turbo, baseURL: "${model.baseURL}", apiKey: sk-test, maxRetries: 0 }`,
      'mcpServers:',
      `  demo: { command: node, args: [${JSON.stringify(DEMO_SERVER)}] }`,
    ].join('\n'));
    const config = loadConfig({ path: join(folder, 'agent.yml'), environment: {} });
    agent = buildAgent(config, { store: createMemoryConversationStore(), extensions: [notes], logger: { debug() {}, info() {}, warn() {}, error() {} } });
  });

  afterAll(async () => {
    await agent?.close();
    await model?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('offers its tool beside the MCP tools, keeps its state in the conversation, and changes every request after', async () => {
    const events: LoopEvent[] = [];
    const first = await agent.ask({ conversationId: 'notes', message: 'Always give me Fahrenheit.', onEvent: (event) => events.push(event) });

    expect(first).toMatchObject({ reply: 'Noted.', notes: ['The user wants temperatures in Fahrenheit.'], toolCalls: [{ name: 'save_note', ok: true }] });
    expect(events.filter((event) => event.type === 'extension')).toEqual([{ type: 'extension', name: 'notes', data: { notes: ['The user wants temperatures in Fahrenheit.'] } }]);
    const bodies = completionBodies(model);
    expect(toolNames(bodies[0]!)).toEqual(['foo', 'getWeather', 'getNews', 'batchCancelOrdersByOrderNo', 'save_note']);
    expect(systemPromptOf(bodies[0]!)).not.toContain('## Notes');
    expect(toolAnswers(bodies[1]!)[0]).toMatchObject({ tool_call_id: 'note_1', content: 'Saved. Notes kept: 1.' });
    expect(systemPromptOf(bodies[1]!)).toMatch(/\n\n## Notes\n- The user wants temperatures in Fahrenheit\.$/);

    const next = await agent.ask({ conversationId: 'notes', message: 'Weather in Shanghai?' });

    expect(next).toMatchObject({ turn: 2, notes: ['The user wants temperatures in Fahrenheit.'] });
    expect(systemPromptOf(completionBodies(model)[2]!)).toMatch(/## Notes\n- The user wants temperatures in Fahrenheit\.$/);
    for (const body of completionBodies(model)) expect(wireViolations(body)).toEqual([]);
    expect(await agent.getConversation({ conversationId: 'notes' })).toMatchObject({ notes: ['The user wants temperatures in Fahrenheit.'] });
  });
});
