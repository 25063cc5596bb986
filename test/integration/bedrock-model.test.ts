/**
 * The Bedrock adapter through the AWS SDK over real HTTP/2 against the Bedrock stand-in, which
 * checks every request as Bedrock does (SigV4 for `bedrock`, alternating roles, every toolUse
 * answered, the id charset, toolSpec shapes) and refuses what Bedrock would refuse.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/config/schema.ts';
import type { Message } from '../../lib/core/messages.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import type { ToolDefinition } from '../../lib/core/ports/tools.ts';
import { bedrockModelsPerTest } from '../support/bedrock-model.ts';
import { converseText, converseToolUse, usage } from '../support/bedrock-stand-in-events.ts';
import { batchCancelOrdersByOrderNo, getWeather } from '../support/original-tools.ts';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const modelAgainst = bedrockModelsPerTest(MODEL);
const TOOLS: ToolDefinition[] = [getWeather, batchCancelOrdersByOrderNo];
const QUESTION = '取消订单ORD20250514118566，再查一下上海的天气';
const MESSAGES: Message[] = [
  { role: 'system', content: DEFAULT_SYSTEM_PROMPT },
  { role: 'user', content: QUESTION },
];
const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ messages: MESSAGES, tools: TOOLS, ...overrides });

/** The first turn of the original request: two parallel calls and their results. */
const firstRound = (ids: [string, string]): Message[] => [
  ...MESSAGES,
  {
    role: 'assistant',
    content: null,
    toolCalls: [
      { id: ids[0], name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNos":["ORD20250514118566"]}' },
      { id: ids[1], name: 'getWeather', arguments: '{"city":"上海"}' },
    ],
  },
  { role: 'tool', toolCallId: ids[0], name: 'batchCancelOrdersByOrderNo', content: '{"cancelled":["ORD20250514118566"]}' },
  { role: 'tool', toolCallId: ids[1], name: 'getWeather', content: 'Error: the weather service is down' },
];

describe('createBedrockModel request', () => {
  it('sends the system prompt as system and the tools as toolSpecs, signed for bedrock over HTTP/2', async () => {
    const { standIn, model } = await modelAgainst([converseText('好的')]);

    await model.complete(request());

    expect(standIn.requests).toHaveLength(1);
    const [sent] = standIn.requests;
    expect(sent).toMatchObject({ httpVersion: '2.0', operation: 'converse', modelId: MODEL });
    expect(sent!.rejected).toBeUndefined();
    expect(sent!.body).toEqual({
      system: [{ text: DEFAULT_SYSTEM_PROMPT }],
      messages: [{ role: 'user', content: [{ text: QUESTION }] }],
      toolConfig: {
        tools: TOOLS.map((tool) => ({ toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.parameters } } })),
      },
      inferenceConfig: { temperature: 0.7 },
    });
  });

  it('asks for a structured answer in a system block after the system prompt (Converse has no JSON mode)', async () => {
    const { standIn, model } = await modelAgainst([converseText('{"city":"上海"}')]);
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

    await model.complete(request({ responseFormat: { type: 'json_schema', name: 'weather', schema } }));

    const system = standIn.requests[0]!.body['system'] as Array<{ text?: string }>;
    expect(system[0]).toEqual({ text: DEFAULT_SYSTEM_PROMPT });
    expect(system[1]?.text).toContain('"weather"');
    expect(system[1]?.text).toContain(JSON.stringify(schema));
    expect(standIn.requests[0]!.body['toolConfig']).toBeDefined();
  });

  it('answers text only with the text and the usage', async () => {
    const { model } = await modelAgainst([converseText('Shanghai is sunny.', 'end_turn', usage(40, 6))]);

    const reply = await model.complete(request({ tools: [] }));

    expect(reply).toEqual({ content: 'Shanghai is sunny.', toolCalls: [], usage: { promptTokens: 40, completionTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0 } });
  });

  it('returns one call with its arguments as JSON text', async () => {
    const { model } = await modelAgainst([converseToolUse([{ toolUseId: 'tooluse_A1b2', name: 'getWeather', input: { city: '上海' } }], 'Let me look.')]);

    const reply = await model.complete(request());

    expect(reply.content).toBe('Let me look.');
    expect(reply.toolCalls).toEqual([{ id: 'tooluse_A1b2', name: 'getWeather', arguments: '{"city":"上海"}' }]);
  });

  it('sends parallel calls back with all their results in one user message, in call order, json or text', async () => {
    const { standIn, model } = await modelAgainst([converseText('Cancelled; the weather service is down.')]);

    const reply = await model.complete(request({ messages: firstRound(['tooluse_1', 'tooluse_2']) }));

    expect(reply.content).toBe('Cancelled; the weather service is down.');
    expect(standIn.requests[0]!.rejected).toBeUndefined();
    expect(standIn.requests[0]!.body['messages']).toEqual([
      { role: 'user', content: [{ text: QUESTION }] },
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 'tooluse_1', name: 'batchCancelOrdersByOrderNo', input: { orderNos: ['ORD20250514118566'] } } },
          { toolUse: { toolUseId: 'tooluse_2', name: 'getWeather', input: { city: '上海' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_1', content: [{ json: { cancelled: ['ORD20250514118566'] } }] } },
          // The failing tool's words go as text: the model reads them and can adapt.
          { toolResult: { toolUseId: 'tooluse_2', content: [{ text: 'Error: the weather service is down' }] } },
        ],
      },
    ]);
  });

  it('carries a second turn whose first turn came from other providers, re-encoding ids Converse refuses', async () => {
    const openAIId = 'call_7UjkXq3WmZp9Rt2LbV0aHs1d';
    const geminiId = 'functions.getWeather:0 (gemini/2.5)';
    const { standIn, model } = await modelAgainst([converseToolUse([{ toolUseId: 'tooluse_Next1', name: 'getWeather', input: { city: 'Beijing' } }])]);
    const messages: Message[] = [
      ...firstRound([openAIId, geminiId]),
      { role: 'assistant', content: 'Done: cancelled, and no weather.', toolCalls: [] },
      { role: 'user', content: 'And Beijing?' },
    ];

    const reply = await model.complete(request({ messages }));

    expect(standIn.requests[0]!.rejected).toBeUndefined();
    const sent = standIn.requests[0]!.body['messages'] as Array<{ role: string; content: Array<Record<string, { toolUseId: string }>> }>;
    const useIds = sent[1]!.content.map((block) => block['toolUse']!.toolUseId);
    const resultIds = sent[2]!.content.map((block) => block['toolResult']!.toolUseId);
    expect(useIds[0]).toBe(openAIId);
    expect(useIds[1]).toMatch(/^functions_getWeather_0_gemini_2_5_[0-9a-f]{8}$/);
    expect(resultIds).toEqual(useIds);
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(reply.toolCalls).toEqual([{ id: 'tooluse_Next1', name: 'getWeather', arguments: '{"city":"Beijing"}' }]);
  });

  it('encodes the same history the same way every time, and gives a repeated id a fresh one', async () => {
    const { standIn, model } = await modelAgainst([converseText('one'), converseText('two')]);
    const messages: Message[] = [
      ...firstRound(['call_0', 'call 1']),
      { role: 'assistant', content: 'ok', toolCalls: [] },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_0', name: 'getWeather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', toolCallId: 'call_0', name: 'getWeather', content: 'sunny' },
    ];

    await model.complete(request({ messages }));
    await model.complete(request({ messages }));

    expect(standIn.requests.map((sent) => sent.rejected)).toEqual([undefined, undefined]);
    expect(standIn.requests[0]!.body).toEqual(standIn.requests[1]!.body);
    const sent = standIn.requests[0]!.body['messages'] as Array<{ content: Array<Record<string, { toolUseId: string }>> }>;
    expect(sent[5]!.content[0]!['toolUse']!.toolUseId).toBe('call_0_2');
    expect(sent[6]!.content[0]!['toolResult']!.toolUseId).toBe('call_0_2');
  });

  it('sends no empty text blocks and no empty messages', async () => {
    const { standIn, model } = await modelAgainst([converseText('fine')]);
    const messages: Message[] = [
      { role: 'system', content: '' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '', toolCalls: [] },
      { role: 'user', content: 'Are you there?' },
      { role: 'assistant', content: '  ', toolCalls: [{ id: 'tooluse_x', name: 'getWeather', arguments: '' }] },
      { role: 'tool', toolCallId: 'tooluse_x', name: 'getWeather', content: '' },
    ];

    await model.complete(request({ messages }));

    expect(standIn.requests[0]!.rejected).toBeUndefined();
    expect(standIn.requests[0]!.body['system']).toBeUndefined();
    expect(standIn.requests[0]!.body['messages']).toEqual([
      { role: 'user', content: [{ text: 'Hi' }, { text: 'Are you there?' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_x', name: 'getWeather', input: {} } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_x', content: [{ text: '(the tool returned nothing)' }] } }] },
    ]);
  });

  it('writes earlier calls as text when the request offers no tools (a summary call), as Converse requires', async () => {
    const { standIn, model } = await modelAgainst([converseText('Summary.')]);

    await model.complete(request({ messages: [...firstRound(['tooluse_1', 'tooluse_2']), { role: 'user', content: 'Summarize.' }], tools: [] }));

    expect(standIn.requests[0]!.rejected).toBeUndefined();
    expect(standIn.requests[0]!.body['toolConfig']).toBeUndefined();
    expect(JSON.stringify(standIn.requests[0]!.body['messages'])).toContain('[called the tool getWeather with {\\"city\\":\\"上海\\"}]');
  });

  it('sends images of tool results as image blocks after the results', async () => {
    const { standIn, model } = await modelAgainst([converseText('A chart.')]);
    const png = Buffer.from('not really a png').toString('base64');
    const messages: Message[] = [
      ...MESSAGES,
      { role: 'assistant', content: null, toolCalls: [{ id: 'tooluse_1', name: 'getWeather', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'tooluse_1', name: 'getWeather', content: 'an image (image/png)' },
      { role: 'user', content: 'Images of the results above:', images: [{ mimeType: 'image/png', data: png }] },
    ];

    await model.complete(request({ messages }));

    expect(standIn.requests[0]!.rejected).toBeUndefined();
    const last = (standIn.requests[0]!.body['messages'] as Array<{ content: unknown[] }>)[2]!;
    expect(last.content).toEqual([
      { toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'an image (image/png)' }] } },
      { text: 'Images of the results above:' },
      { image: { format: 'png', source: { bytes: png } } },
    ]);
  });

  it('puts cachePoints after the system prompt and the tools, and counts cache reads and writes as prompt tokens', async () => {
    const { standIn, model } = await modelAgainst([converseText('cached', 'end_turn', usage(10, 3, { read: 1200, write: 300 }))], { promptCache: true });

    const reply = await model.complete(request());

    const body = standIn.requests[0]!.body;
    expect(standIn.requests[0]!.rejected).toBeUndefined();
    expect(body['system']).toEqual([{ text: DEFAULT_SYSTEM_PROMPT }, { cachePoint: { type: 'default' } }]);
    expect((body['toolConfig'] as { tools: unknown[] }).tools.at(-1)).toEqual({ cachePoint: { type: 'default' } });
    expect(reply.usage).toEqual({ promptTokens: 1510, completionTokens: 3, cacheReadTokens: 1200, cacheWriteTokens: 300 });
  });

  it('passes the guardrail as guardrailConfig', async () => {
    const { standIn, model } = await modelAgainst([converseText('ok')], { guardrail: { id: 'gr-abc123', version: '2', trace: 'enabled' } });

    await model.complete(request());

    expect(standIn.requests[0]!.body['guardrailConfig']).toEqual({ guardrailIdentifier: 'gr-abc123', guardrailVersion: '2', trace: 'enabled' });
  });

  it('asks for extended thinking with its budget, without a temperature and with room to answer', async () => {
    const { standIn, model } = await modelAgainst([converseText('ok')], { reasoningBudgetTokens: 2048 });

    await model.complete(request());

    expect(standIn.requests[0]!.body['additionalModelRequestFields']).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(standIn.requests[0]!.body['inferenceConfig']).toEqual({ maxTokens: 2048 + 4096 });
  });

  it('sends maxTokens as the smaller of the configured cap and the request’s own', async () => {
    const { standIn, model } = await modelAgainst([converseText('ok')], { maxTokens: 1000 });

    await model.complete(request({ maxTokens: 200 }));

    expect(standIn.requests[0]!.body['inferenceConfig']).toEqual({ maxTokens: 200, temperature: 0.7 });
  });
});

describe('createBedrockModel stop reasons', () => {
  it('says a guardrail intervened in the reply, with its own words, runs no calls, and keeps the stop reason', async () => {
    const blocked = {
      output: { message: { role: 'assistant', content: [{ text: 'Sorry, I cannot help with that.' }, { toolUse: { toolUseId: 'tooluse_9', name: 'batchCancelOrdersByOrderNo', input: {} } }] } },
      stopReason: 'guardrail_intervened',
      usage: usage(12, 0),
    };
    const { model } = await modelAgainst([blocked]);

    const reply = await model.complete(request());

    expect(reply.content).toBe('Sorry, I cannot help with that.');
    expect(reply.toolCalls).toEqual([]);
    expect(reply.providerData).toEqual({ bedrock: { stopReason: 'guardrail_intervened' } });
  });

  it.each([
    ['guardrail_intervened', 'The configured Amazon Bedrock guardrail blocked this exchange.'],
    ['content_filtered', "The model's content filter withheld this reply."],
  ])('answers %s without text with a sentence saying so, never an empty completion', async (stopReason, sentence) => {
    const { model } = await modelAgainst([{ output: { message: { role: 'assistant', content: [] } }, stopReason, usage: usage(5, 0) }]);

    const reply = await model.complete(request());

    expect(reply.content).toBe(sentence);
    expect(reply.providerData).toEqual({ bedrock: { stopReason } });
  });

  it('keeps a max_tokens reply as written, with no provider data', async () => {
    const { model } = await modelAgainst([converseText('The weather in Shang', 'max_tokens')]);

    const reply = await model.complete(request());

    expect(reply).toMatchObject({ content: 'The weather in Shang', toolCalls: [] });
    expect(reply.providerData).toBeUndefined();
  });
});

describe('createBedrockModel reasoning', () => {
  const thinkingReply = {
    output: {
      message: {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'The user wants two things.', signature: 'EqQBCkgIARABGAIiQGl0J3Mgc2lnbmVk' } } },
          { toolUse: { toolUseId: 'tooluse_T1', name: 'getWeather', input: { city: '上海' } } },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: usage(50, 30),
  };

  it('returns the reasoning, and sends each block back unchanged, first, on the later requests of the turn only', async () => {
    const { standIn, model } = await modelAgainst([thinkingReply, converseText('Sunny.'), converseText('Bye.')], { reasoningBudgetTokens: 1024 });

    const first = await model.complete(request());
    expect(first.reasoning).toEqual({ text: 'The user wants two things.' });
    expect(first.providerData).toEqual({ bedrock: { reasoning: [{ text: 'The user wants two things.', signature: 'EqQBCkgIARABGAIiQGl0J3Mgc2lnbmVk' }] } });
    const assistant: Message = { role: 'assistant', content: first.content, toolCalls: first.toolCalls, reasoning: first.reasoning!, providerData: first.providerData! };
    const sameTurn: Message[] = [...MESSAGES, assistant, { role: 'tool', toolCallId: 'tooluse_T1', name: 'getWeather', content: 'sunny' }];

    await model.complete(request({ messages: sameTurn }));
    await model.complete(request({ messages: [...sameTurn, { role: 'assistant', content: 'Sunny.', toolCalls: [] }, { role: 'user', content: 'Thanks' }] }));

    expect(standIn.requests.map((sent) => sent.rejected)).toEqual([undefined, undefined, undefined]);
    const replayed = (standIn.requests[1]!.body['messages'] as Array<{ content: unknown[] }>)[1]!.content;
    expect(replayed).toEqual([
      { reasoningContent: { reasoningText: { text: 'The user wants two things.', signature: 'EqQBCkgIARABGAIiQGl0J3Mgc2lnbmVk' } } },
      { toolUse: { toolUseId: 'tooluse_T1', name: 'getWeather', input: { city: '上海' } } },
    ]);
    const nextTurn = (standIn.requests[2]!.body['messages'] as Array<{ content: unknown[] }>)[1]!.content;
    expect(nextTurn).toEqual([{ toolUse: { toolUseId: 'tooluse_T1', name: 'getWeather', input: { city: '上海' } } }]);
  });

  it('ignores what other providers keep on a message', async () => {
    const { standIn, model } = await modelAgainst([converseText('ok')]);
    const messages: Message[] = [
      ...MESSAGES,
      { role: 'assistant', content: 'Hm.', toolCalls: [], reasoning: { text: 'DeepSeek thought' }, providerData: { openai: { reasoningField: 'reasoning_content', extraContent: { google: { thought_signature: 'abc' } } } } },
      { role: 'user', content: 'Go on' },
    ];

    await model.complete(request({ messages }));

    expect((standIn.requests[0]!.body['messages'] as Array<{ content: unknown[] }>)[1]!.content).toEqual([{ text: 'Hm.' }]);
  });
});
