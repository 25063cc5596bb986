/**
 * The UI toolkit doors' mappings from loop events, for what the e2e tests (test/e2e/ui-streams.test.ts)
 * cannot script cheaply: a question an MCP server asks, a plan, reasoning, a stored turn replayed
 * whole, and a failure once the stream had begun. Each chunk is checked by the toolkit's own schema
 * and the AI SDK's message built by its own reader.
 */
import { EventSchemas } from '@ag-ui/core/schemas';
import { readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import type { TurnResult } from '../../lib/core/turn.ts';
import type { LoopEvent } from '../../lib/agent/loop/loop-events.ts';
import { AgUiEvents } from '../../lib/front-doors/ag-ui/ag-ui-events.ts';
import { UIMessageChunks } from '../../lib/front-doors/ai-sdk-ui/ui-message-chunks.ts';

const result = (overrides: Partial<TurnResult> = {}): TurnResult => ({
  conversationId: 'c1', turn: 1, reply: 'Done.', stopReason: 'completed', rounds: 1, toolCalls: [], usage: { promptTokens: 10, completionTokens: 2 }, ...overrides,
});
const QUESTION = { toolCallId: 'call_1', name: 'book', server: 'demo', message: 'Which date?', requestedSchema: { type: 'object', properties: { date: { type: 'string' } } } };
const PLAN = { tasks: [{ id: 1, title: 'Look it up', independent: true, status: 'in_progress' }] };
const FAILURE = { statusCode: 502, headers: {}, body: JSON.stringify({ error: { code: 'model_unavailable', message: 'The model did not answer.' } }) };

/** The SDK's own check of a chunk, as DefaultChatTransport runs it on each one it reads. */
const validate = (value: unknown) => (uiMessageChunkSchema() as unknown as { validate(value: unknown): Promise<{ success: boolean }> }).validate(value);

/** The chunks, each validated by the SDK's schema, and the message its reader builds from them. */
async function uiMessage(chunks: UIMessageChunk[]): Promise<{ message: UIMessage | undefined; errors: unknown[] }> {
  for (const chunk of chunks) expect(await validate(chunk), JSON.stringify(chunk)).toMatchObject({ success: true });
  const stream = new ReadableStream<UIMessageChunk>({ start: (controller) => { for (const chunk of chunks) controller.enqueue(chunk); controller.close(); } });
  const errors: unknown[] = [];
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push(error) })) message = snapshot;
  return { message, errors };
}

function uiChunksOf(events: LoopEvent[], end: { result: TurnResult } | { failure: typeof FAILURE }): UIMessageChunk[] {
  const mapper = new UIMessageChunks();
  return [...events.flatMap((event) => mapper.event(event)), ...('result' in end ? mapper.result(end.result) : mapper.failure(end.failure))];
}

function agUiEventsOf(events: LoopEvent[], end: { result: TurnResult } | { failure: typeof FAILURE }) {
  const mapper = new AgUiEvents({ threadId: 'c1', runId: 'r1' });
  const all = [...events.flatMap((event) => mapper.event(event)), ...('result' in end ? mapper.result(end.result) : mapper.failure(end.failure))];
  return all.map((event) => EventSchemas.parse(event) as any);
}

const START: LoopEvent[] = [{ type: 'turn-start', conversationId: 'c1', turn: 1, requestId: 'q1' }, { type: 'round-start', round: 1 }];
const ASKED: LoopEvent[] = [...START, { type: 'tool-call', round: 1, call: { id: 'call_1', name: 'book', arguments: {} } }, { type: 'elicitation-required', round: 1, pendingElicitations: [QUESTION] }];

describe('the AI SDK UI message stream mapping', () => {
  it('shows a question an MCP server asks as a data part saying how to answer it', async () => {
    const { message } = await uiMessage(uiChunksOf(ASKED, { result: result({ stopReason: 'input_required', reply: 'A tool needs your answer.', pendingElicitations: [QUESTION] }) }));
    expect(message?.parts.find((part) => part.type === 'data-elicitation')).toMatchObject({ data: { pendingElicitations: [QUESTION], howToAnswer: expect.stringContaining('/approvals') } });
    expect(message?.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'A tool needs your answer.' });
  });

  it('keeps the plan as one data part, and the reasoning as a reasoning part', async () => {
    const events: LoopEvent[] = [...START, { type: 'reasoning-delta', round: 1, text: 'Think.' }, { type: 'extension', name: 'plan', data: { plan: PLAN } }, { type: 'text-delta', round: 1, text: 'Done.' }];
    const { message } = await uiMessage(uiChunksOf(events, { result: result() }));
    expect(message?.parts.filter((part) => part.type === 'data-plan')).toEqual([{ type: 'data-plan', id: 'plan', data: { plan: PLAN } }]);
    expect(message?.parts.find((part) => part.type === 'reasoning')).toMatchObject({ text: 'Think.' });
    expect(message?.parts.filter((part) => part.type === 'text').map((part) => part.text)).toEqual(['Done.']);
  });

  it('shows a call the request declined as denied, on the part that waited', async () => {
    const waiting = { type: 'dynamic-tool', toolName: 'cancel', toolCallId: 'call_1', state: 'approval-responded', input: {}, approval: { id: 'call_1', approved: false } } as const;
    const mapper = new UIMessageChunks(new Set(['call_1']));
    const chunks = [
      ...mapper.event({ type: 'tool-result', round: 1, result: { id: 'call_1', name: 'cancel', arguments: {}, ok: false, durationMs: 0 }, content: 'Declined by the user.' }),
      ...mapper.result(result({ reply: 'Not cancelled.' })),
    ];
    const stream = new ReadableStream<UIMessageChunk>({ start: (controller) => { for (const chunk of chunks) controller.enqueue(chunk); controller.close(); } });
    let message: UIMessage | undefined;
    for await (const snapshot of readUIMessageStream({ stream, message: { id: 'a1', role: 'assistant', parts: [waiting] } })) message = snapshot;
    expect(message?.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({ toolCallId: 'call_1', state: 'output-denied' });
  });

  it('gives a stored turn replayed whole (no loop events) its reply, its todo list and its result', async () => {
    const todos = [{ content: 'Look it up', status: 'completed' as const }];
    const { message } = await uiMessage(uiChunksOf([], { result: result({ reply: 'Stored answer.', todos }) }));
    expect(message?.parts.filter((part) => part.type === 'text').map((part) => part.text)).toEqual(['Stored answer.']);
    expect(message?.parts.filter((part) => part.type === 'data-todos')).toEqual([{ type: 'data-todos', id: 'todos', data: { todos } }]);
    expect(message?.metadata).toMatchObject({ conversationId: 'c1', stopReason: 'completed' });
  });

  it('ends a turn that failed after the stream began with an error chunk', async () => {
    const chunks = uiChunksOf([...START, { type: 'text-delta', round: 1, text: 'Hm' }], { failure: FAILURE });
    expect(chunks.at(-1)).toEqual({ type: 'error', errorText: 'The model did not answer. (model_unavailable)' });
    expect((await uiMessage(chunks)).errors).toHaveLength(1);
  });
});

describe('the AG-UI mapping', () => {
  it('ends a run whose call asked a question with an input_required interrupt carrying the fields asked for', () => {
    const events = agUiEventsOf(ASKED, { result: result({ stopReason: 'input_required', reply: 'A tool needs your answer.' }) });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt', interrupts: [{ id: 'call_1', reason: 'input_required', message: 'Which date?', toolCallId: 'call_1', responseSchema: QUESTION.requestedSchema }] } });
  });

  it('gives a question that asks the user to open a page its URL in the interrupt, and no form', () => {
    const page = { toolCallId: 'call_1', name: 'book', server: 'crm', message: 'Connect your CRM account.', requestedSchema: {}, mode: 'url' as const, url: 'https://login.example/authorize?state=s1', elicitationId: 'e1' };
    const asked: LoopEvent[] = [...START, { type: 'tool-call', round: 1, call: { id: 'call_1', name: 'book', arguments: {} } }, { type: 'elicitation-required', round: 1, pendingElicitations: [page] }];
    const events = agUiEventsOf(asked, { result: result({ stopReason: 'input_required', reply: 'A tool needs your answer.' }) });
    const [interrupt] = events.at(-1).outcome.interrupts;
    expect(interrupt).toMatchObject({ id: 'call_1', reason: 'input_required', message: 'Connect your CRM account.', metadata: { server: 'crm', mode: 'url', url: page.url, elicitationId: 'e1' } });
    expect(interrupt.responseSchema).toBeUndefined();
  });

  it('keeps the plan in the state, beside the todo list', () => {
    const events = agUiEventsOf([...START, { type: 'extension', name: 'todos', data: { todos: [] } }, { type: 'extension', name: 'plan', data: { plan: PLAN } }, { type: 'extension', name: 'task-start', data: { taskId: 1 } }], { result: result() });
    expect(events.filter((event) => event.type === 'STATE_SNAPSHOT').at(-1).snapshot).toEqual({ todos: [], plan: PLAN });
    expect(events.find((event) => event.type === 'CUSTOM')).toMatchObject({ name: 'task-start', value: { taskId: 1 } });
  });

  it('gives a stored turn replayed whole a run with its reply and its state', () => {
    const todos = [{ content: 'Look it up', status: 'completed' as const }];
    const events = agUiEventsOf([], { result: result({ reply: 'Stored answer.', todos }) });
    expect(events.map((event) => event.type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'STATE_SNAPSHOT', 'RUN_FINISHED']);
    expect(events[4].snapshot).toEqual({ todos });
  });

  it('ends a run that failed after it began with RUN_ERROR, its open step and message closed', () => {
    const events = agUiEventsOf([...START, { type: 'text-delta', round: 1, text: 'Hm' }], { failure: FAILURE });
    expect(events.slice(-3).map((event) => event.type)).toEqual(['TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_ERROR']);
    expect(events.at(-1)).toMatchObject({ message: 'The model did not answer.', code: 'model_unavailable' });
  });
});
