/**
 * The agent's parts of what MCP servers ask (lib/extensions/mcp/): a call's session answering its
 * server's questions and sampling in order, the router that keeps calls to an asking server apart,
 * the images placed for the model, and the decisions a person sends.
 */
import { describe, expect, it } from 'vitest';
import type { CallInput } from '../../lib/agent/loop/call-input.ts';
import type { RunningCall, TurnContext } from '../../lib/agent/extension-api/extension.ts';
import { CallSession } from '../../lib/extensions/mcp/call-session.ts';
import { withImages } from '../../lib/extensions/mcp/image-results.ts';
import { createServerRequestRouter, type CallAnswers } from '../../lib/extensions/mcp/request-router.ts';
import { checkDecisions } from '../../lib/agent/turn/validate-input.ts';
import { toWireMessages } from '../../lib/adapters/openai/wire.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';
import type { ElicitationRequest, SamplingRequest } from '../../lib/core/ports/tools.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import { createScriptedModel, textReply } from '../../lib/testing/scripted-model.ts';

const NAME_FORM: ElicitationRequest = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } };
const EMAIL_FORM: ElicitationRequest = { message: 'Your email?', requestedSchema: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] } };
const SAMPLING: SamplingRequest = { messages: [{ role: 'user', text: 'Name a colour' }], systemPrompt: 'Be brief.', maxTokens: 20 };

function turnContext(rounds = { left: 3, spent: 0 }, requests: ModelRequest[] = []): TurnContext {
  const model = createScriptedModel([textReply('Teal.'), textReply('Red.')]);
  return {
    conversationId: 'c-1',
    owner: undefined,
    turn: 1,
    round: 1,
    tools: [],
    history: [],
    messages: [],
    model: { complete: (request) => (requests.push(request), model.complete(request)) },
    takeRound: () => rounds.left-- > 0,
    addUsage: (usage) => void (rounds.spent += usage.completionTokens),
    timeLeftMs: () => 60_000,
    state: {},
    scratch: {},
    emit: () => undefined,
  };
}

const runningCall = (): RunningCall => ({ id: 'call_1', name: 'book', arguments: {}, server: 'travel', signal: new AbortController().signal, timeoutMs: 10_000 });

function session(answers: CallInput[], options: { samplingNeedsApproval?: boolean; turn?: TurnContext } = {}) {
  return new CallSession({ server: 'travel', call: runningCall(), turn: options.turn ?? turnContext(), answers, samplingNeedsApproval: options.samplingNeedsApproval ?? false, modelTimeoutMs: 30_000, modelName: 'gpt-test' });
}

describe('CallSession', () => {
  it('asks the first question it has no answer for, and tells the server the user cancelled', async () => {
    const first = session([]);
    expect(await first.elicit(NAME_FORM)).toEqual({ action: 'cancel' });
    expect(first.awaited).toEqual({ kind: 'elicitation', server: 'travel', request: NAME_FORM });
  });

  it('gives the answers in the order the questions come, across runs of the call', async () => {
    const answers: CallInput[] = [{ kind: 'elicitation', result: { action: 'accept', content: { name: 'Ada' } } }];
    const second = session(answers);
    expect(await second.elicit(NAME_FORM)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(await second.elicit(EMAIL_FORM)).toEqual({ action: 'cancel' });
    expect(second.awaited).toMatchObject({ request: EMAIL_FORM });

    answers.push({ kind: 'elicitation', result: { action: 'accept', content: { email: 'ada@example.com' } } });
    const third = session(answers);
    expect(await third.elicit(NAME_FORM)).toMatchObject({ content: { name: 'Ada' } });
    expect(await third.elicit(EMAIL_FORM)).toMatchObject({ content: { email: 'ada@example.com' } });
    expect(third.awaited).toBeUndefined();
  });

  it('asks anew when the question no longer fits the answer in its place, dropping that answer and the ones after', async () => {
    const answers: CallInput[] = [
      { kind: 'elicitation', result: { action: 'accept', content: { name: 'Ada' } } },
      { kind: 'elicitation', result: { action: 'decline' } },
    ];
    const run = session(answers);
    expect(await run.elicit(EMAIL_FORM)).toEqual({ action: 'cancel' });
    expect(run.awaited).toMatchObject({ request: EMAIL_FORM });
    expect(answers).toEqual([]);
  });

  it('answers sampling with the turn’s model, counting the round and its tokens', async () => {
    const rounds = { left: 3, spent: 0 };
    const requests: ModelRequest[] = [];
    const run = session([], { turn: turnContext(rounds, requests) });

    expect(await run.sample(SAMPLING, new AbortController().signal)).toEqual({ text: 'Teal.', model: 'gpt-test', stopReason: 'endTurn' });
    expect(rounds).toEqual({ left: 2, spent: 5 });
    expect(requests[0]).toMatchObject({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Name a colour' }], tools: [], maxTokens: 20 });
  });

  it('refuses sampling once the turn has no round left, without calling the model', async () => {
    const requests: ModelRequest[] = [];
    const run = session([], { turn: turnContext({ left: 0, spent: 0 }, requests) });
    await expect(run.sample(SAMPLING, new AbortController().signal)).rejects.toThrow(/used all its model rounds \(maxRounds\)/);
    expect(requests).toEqual([]);
  });

  it('under sampling: ask, waits for an approval per request, and uses each approval once', async () => {
    const first = session([], { samplingNeedsApproval: true });
    await expect(first.sample(SAMPLING, new AbortController().signal)).rejects.toThrow(/must approve/);
    expect(first.awaited).toEqual({ kind: 'sampling', server: 'travel', request: SAMPLING });

    const approved = session([{ kind: 'sampling', approved: true }], { samplingNeedsApproval: true });
    expect(await approved.sample(SAMPLING, new AbortController().signal)).toMatchObject({ text: 'Teal.' });
    await expect(approved.sample(SAMPLING, new AbortController().signal)).rejects.toThrow(/must approve/);
    expect(approved.awaited).toMatchObject({ kind: 'sampling' });
  });
});

describe('the server request router', () => {
  const answersFor = (conversationId: string, owner?: string): CallAnswers => ({
    conversationId,
    owner,
    elicit: async () => ({ action: 'accept', content: { by: conversationId } }),
    sample: async () => ({ text: conversationId, model: 'm' }),
  });
  const context = (server: string, callers: Array<{ conversationId: string; owner?: string }> = []) => ({
    server,
    toolCalls: callers.map((caller) => ({ name: 't', originalName: 't', caller })),
    signal: new AbortController().signal,
  });

  it('runs calls to one server one at a time, and calls to other servers beside them', async () => {
    const router = createServerRequestRouter(silentLogger);
    const order: string[] = [];
    let finishFirst!: () => void;
    const first = router.exclusive('travel', answersFor('a'), () => new Promise<void>((resolve) => {
      order.push('first started');
      finishFirst = () => {
        order.push('first ended');
        resolve();
      };
    }), new AbortController().signal);
    const second = router.exclusive('travel', answersFor('b'), async () => void order.push('second started'), new AbortController().signal);
    await router.exclusive('other', answersFor('c'), async () => void order.push('other server ran'), new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 10));

    expect(order).toEqual(['first started', 'other server ran']);
    finishFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first started', 'other server ran', 'first ended', 'second started']);
  });

  it('gives a server’s request to the call running on it, and declines when another conversation’s call is there too', async () => {
    const router = createServerRequestRouter(silentLogger);
    await router.exclusive('travel', answersFor('a'), async () => {
      expect(await router.onElicitation(NAME_FORM, context('travel', [{ conversationId: 'a' }]))).toEqual({ action: 'accept', content: { by: 'a' } });
      expect(await router.onElicitation(NAME_FORM, context('travel', [{ conversationId: 'a' }, { conversationId: 'b' }]))).toEqual({ action: 'decline' });
      expect(await router.onElicitation(NAME_FORM, context('travel', [{ conversationId: 'a', owner: 'someone-else' }]))).toEqual({ action: 'decline' });
      expect(await router.onSampling(SAMPLING, context('travel', [{ conversationId: 'a' }]))).toEqual({ text: 'a', model: 'm' });
    }, new AbortController().signal);
    expect(await router.onElicitation(NAME_FORM, context('travel'))).toEqual({ action: 'decline' });
    await expect(router.onSampling(SAMPLING, context('travel'))).rejects.toThrow(/no tool call/);
  });

  it('stops waiting when the waiting call’s signal aborts, without holding up the calls after it', async () => {
    const router = createServerRequestRouter(silentLogger);
    let finishFirst!: () => void;
    const first = router.exclusive('travel', answersFor('a'), () => new Promise<void>((resolve) => (finishFirst = resolve)), new AbortController().signal);
    const timedOut = new AbortController();
    const waiting = router.exclusive('travel', answersFor('b'), async () => 'ran', timedOut.signal);
    const third = router.exclusive('travel', answersFor('c'), async () => 'third ran', new AbortController().signal);
    timedOut.abort(new Error('call timed out'));

    await expect(waiting).rejects.toThrow('call timed out');
    finishFirst();
    await first;
    await expect(third).resolves.toBe('third ran');
  });
});

describe('images of tool results', () => {
  const image = { mimeType: 'image/png', data: 'iVBORw0KGgo=' };
  const messages: HistoryMessage[] = [
    { role: 'user', content: 'Show both' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'a', name: 'snap', arguments: '{}' }, { id: 'b', name: 'echo', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'a', name: 'snap', content: '[image: image/png, 12 bytes base64]' },
    { role: 'tool', toolCallId: 'b', name: 'echo', content: 'hi' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 'snap', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'c', name: 'snap', content: '[image: image/png, 12 bytes base64]' },
  ];

  it('follows each round’s tool messages with one user message holding that round’s images', () => {
    const shown = withImages(messages, [{ callId: 'a', tool: 'snap', images: [image] }, { callId: 'c', tool: 'snap', images: [image, image] }]);

    expect(shown.map((message) => (message.role === 'tool' ? `tool ${message.toolCallId}` : message.role))).toEqual(['user', 'assistant', 'tool a', 'tool b', 'user', 'assistant', 'tool c', 'user']);
    expect(shown[4]).toEqual({ role: 'user', content: 'The images the tool results above describe, in order. snap (a): 1 image.', images: [image] });
    expect(shown[7]).toMatchObject({ content: expect.stringContaining('snap (c): 2 images'), images: [image, image] });
  });

  it('are sent as data URLs in content parts; other user messages stay plain text', () => {
    const wire = toWireMessages([{ role: 'user', content: 'plain' }, { role: 'user', content: 'look', images: [image] }]);
    expect(wire).toEqual([
      { role: 'user', content: 'plain' },
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
    ]);
  });
});

describe('decisions', () => {
  it.each([
    ['an answer', [{ toolCallId: 'c1', answer: { action: 'accept', content: { name: 'Ada', tags: ['a'], age: 3, ok: true } } }], undefined],
    ['a decline', [{ toolCallId: 'c1', answer: { action: 'decline' } }], undefined],
    ['both approved and answer', [{ toolCallId: 'c1', approved: true, answer: { action: 'cancel' } }], 'invalid_decisions'],
    ['an unknown action', [{ toolCallId: 'c1', answer: { action: 'maybe' } }], 'invalid_answer'],
    ['content with a decline', [{ toolCallId: 'c1', answer: { action: 'decline', content: {} } }], 'invalid_answer'],
    // A URL-mode question is accepted with no values; a form's required fields are checked against the stored question.
    ['accept without content', [{ toolCallId: 'c1', answer: { action: 'accept' } }], undefined],
    ['a nested value', [{ toolCallId: 'c1', answer: { action: 'accept', content: { name: { first: 'Ada' } } } }], 'invalid_answer'],
    ['an unknown answer field', [{ toolCallId: 'c1', answer: { action: 'cancel', why: 'x' } }], 'unknown_field'],
  ])('%s', (_case, decisions, code) => {
    if (code === undefined) expect(() => checkDecisions(decisions)).not.toThrow();
    else expect(() => checkDecisions(decisions)).toThrow(expect.objectContaining({ code }));
  });

  it('reads an accept without content as accepting an empty form', () => {
    const decisions: unknown = [{ toolCallId: 'c1', answer: { action: 'accept' } }];
    checkDecisions(decisions);
    expect(decisions[0]!.answer).toEqual({ action: 'accept', content: {} });
  });
});

describe('agent.yml', () => {
  const parse = (text: string) => parseConfig(text, { source: '/etc/agent/agent.yml', environment: {} });

  it('reads sampling ask, resource URI patterns and image results', () => {
    const config = parse('model: { imageResults: true }\nmcpServers:\n  a: { command: x, sampling: ask, readResources: ["file:///srv/*"] }\n  b: { command: x, sampling: "true", readResources: "true" }');
    expect(config.model.imageResults).toBe(true);
    expect(config.mcpServers[0]).toMatchObject({ sampling: 'ask', readResources: ['file:///srv/*'] });
    expect(config.mcpServers[1]).toMatchObject({ sampling: true, readResources: true });
    expect(parse('').model.imageResults).toBe(false);
  });

  it('refuses other sampling values', () => {
    expect(() => parse('mcpServers:\n  a: { command: x, sampling: always }')).toThrow(/mcpServers\.a\.sampling/);
  });
});
