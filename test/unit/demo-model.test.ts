/**
 * The offline stand-in model's rules, on their own: which calls a question gets, what the answer
 * says after the tools ran, and that every reply says where it comes from. (It is never used to
 * test the loop: that is the scripted models' job.)
 */
import { describe, expect, it } from 'vitest';
import { MODEL_NOT_CONFIGURED } from '../../lib/core/errors.ts';
import type { Message } from '../../lib/core/messages.ts';
import type { ModelDelta, ModelReply } from '../../lib/core/ports/model.ts';
import type { ToolDefinition } from '../../lib/core/ports/tools.ts';
import { DEMO_PREFIX } from '../../lib/demo/answers.ts';
import { createDemoModel } from '../../lib/demo/model.ts';
import { readQuestion } from '../../lib/demo/questions.ts';
import { runDemoTool } from '../../lib/demo/tools.ts';
import { originalTools } from '../support/original-tools.ts';

const SYSTEM: Message = { role: 'system', content: 'system prompt' };
const model = createDemoModel({ pauseMs: 0 });

const ask = (question: string, tools: ToolDefinition[] = originalTools) => model.complete({ messages: [SYSTEM, { role: 'user', content: question }], tools });

/** The calls as name and parsed arguments. */
const callsOf = (reply: ModelReply) => reply.toolCalls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown }));

/** Runs the reply's calls on the demo server's tools and asks again with their results, as the loop does. */
async function answerAfterTools(question: string, tools: ToolDefinition[] = originalTools): Promise<ModelReply> {
  const first = await ask(question, tools);
  const messages: Message[] = [SYSTEM, { role: 'user', content: question }, { role: 'assistant', content: first.content, toolCalls: first.toolCalls }];
  for (const call of first.toolCalls) {
    const original = tools.find((tool) => tool.name === call.name)?.originalName ?? call.name;
    const result = runDemoTool(original, JSON.parse(call.arguments) as Record<string, unknown>);
    messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.ok ? JSON.stringify(result.value) : result.error });
  }
  return model.complete({ messages, tools });
}

describe('the offline demo model: calls', () => {
  it.each([
    ['上海天气怎么样？', [{ name: 'getWeather', arguments: { city: '上海' } }]],
    ['北京和深圳今天的天气如何', [{ name: 'getWeather', arguments: { city: '北京' } }, { name: 'getWeather', arguments: { city: '深圳' } }]],
    ['What is the weather in Shanghai?', [{ name: 'getWeather', arguments: { city: 'Shanghai' } }]],
    ["What's the weather like in Boston and in New Orleans?", [{ name: 'getWeather', arguments: { city: 'Boston' } }, { name: 'getWeather', arguments: { city: 'New Orleans' } }]],
    ['有哪些科技和体育新闻？', [{ name: 'getNews', arguments: { categorys: [1, 3] } }]],
    ['Any news today?', [{ name: 'getNews', arguments: { categorys: [1, 2, 3, 4, 5] } }]],
    ['取消订单ORD20250514118566和ORD20250514118567', [{ name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118566', 'ORD20250514118567'] } }]],
    ['please cancel ord20250514118567', [{ name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } }]],
    [
      '上海天气怎么样？顺便取消订单 ORD20250514118566',
      [{ name: 'getWeather', arguments: { city: '上海' } }, { name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118566'] } }],
    ],
  ])('answers "%s" with calls to the demo server’s tools', async (question, expected) => {
    const reply = await ask(question);

    expect(callsOf(reply)).toEqual(expected);
    expect(reply.content).toMatch(new RegExp(`^${escape(DEMO_PREFIX)}`));
    expect(new Set(reply.toolCalls.map((call) => call.id)).size).toBe(reply.toolCalls.length);
    reply.toolCalls.forEach((call) => expect(call.id).toMatch(/^call_demo_[a-f0-9]{20}$/));
  });

  it('never cancels an order that is only mentioned', async () => {
    const reply = await ask('订单 ORD20250514118567 是什么状态？');

    expect(reply.toolCalls).toEqual([]);
  });

  it('calls tools by the names the model sees when the gateway renamed them', async () => {
    const renamed = originalTools.map((tool) => ({ ...tool, name: `demo__${tool.name}`, originalName: tool.name, server: 'demo' }));

    const reply = await ask('上海天气怎么样？', renamed);

    expect(callsOf(reply)).toEqual([{ name: 'demo__getWeather', arguments: { city: '上海' } }]);
    expect((await answerAfterTools('上海天气怎么样？', renamed)).content).toMatch(/上海：\S+，-?\d+°C，湿度 \d+%。/);
  });

  it('says which tool is missing when the demo server is not offered', async () => {
    const reply = await ask('上海天气怎么样？', []);

    expect(reply).toMatchObject({ toolCalls: [], content: expect.stringContaining('getWeather') });
  });
});

describe('the offline demo model: answers', () => {
  it('words the weather from getWeather’s result, in the question’s language', async () => {
    const chinese = await answerAfterTools('上海天气怎么样？');
    const english = await answerAfterTools('What is the weather in Paris?');
    const shanghai = runDemoTool('getWeather', { city: '上海' });

    expect(chinese).toEqual({ content: expect.any(String), toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 } });
    expect(chinese.content).toBe(`${DEMO_PREFIX}上海：${(shanghai as any).value.condition}，${(shanghai as any).value.temperatureC}°C，湿度 ${(shanghai as any).value.humidity}%。`);
    expect(english.content).toMatch(/^\[offline demo model\] Paris: [a-z ]+, -?\d+°C, humidity \d+%\.$/);
  });

  it('says which orders were cancelled and which were not, with the server’s reason', async () => {
    const reply = await answerAfterTools('取消订单ORD20250514118566和ORD20250514118567');

    expect(reply.content).toBe(`${DEMO_PREFIX}已取消订单 ORD20250514118567。 未能取消：ORD20250514118566（订单状态已经为取消状态）。`);
  });

  it('lists the headlines of the news categories asked for', async () => {
    const reply = await answerAfterTools('有哪些科技新闻？');

    expect(reply.content).toBe(`${DEMO_PREFIX}科技：国产大模型发布新版本，推理能力显著提升；新一代芯片量产，能效比提高三成`);
  });

  it('quotes a tool’s failure as it came back', async () => {
    const messages: Message[] = [
      SYSTEM,
      { role: 'user', content: '上海天气怎么样？' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'getWeather', arguments: '{"city":"上海"}' }] },
      { role: 'tool', toolCallId: 'call_1', name: 'getWeather', content: 'The tool call timed out after 30 s.' },
    ];

    const reply = await model.complete({ messages, tools: originalTools });

    expect(reply.content).toBe(`${DEMO_PREFIX}getWeather 没有成功：The tool call timed out after 30 s.`);
  });

  it('answers the latest question of a conversation, not an earlier one', async () => {
    const messages: Message[] = [
      SYSTEM,
      { role: 'user', content: '上海天气怎么样？' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'getWeather', arguments: '{"city":"上海"}' }] },
      { role: 'tool', toolCallId: 'call_1', name: 'getWeather', content: '{"city":"上海","condition":"晴","temperatureC":20,"humidity":40}' },
      { role: 'assistant', content: '上海：晴', toolCalls: [] },
      { role: 'user', content: '那北京呢？天气' },
    ];

    const reply = await model.complete({ messages, tools: originalTools });

    expect(callsOf(reply)).toEqual([{ name: 'getWeather', arguments: { city: '北京' } }]);
  });

  it('lists the offered tools when asked which functions it can call (the original request’s question)', async () => {
    const reply = await ask('你有哪些function可以调用');

    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toBe(`${DEMO_PREFIX}我可以调用这些工具：\n- foo: 测试方法\n- getWeather: 获取天气信息\n- getNews: 获取新闻信息\n- batchCancelOrdersByOrderNo: 根据订单号批量取消订单`);
  });

  it('asks for a city when a weather question names none it knows', async () => {
    expect((await ask('明天天气怎么样？')).content).toBe(`${DEMO_PREFIX}想查哪个城市的天气？例如：上海天气怎么样？`);
  });

  it('explains, for anything else, that it is a stand-in and how to configure a real model', async () => {
    const reply = await ask('写一首关于秋天的诗');

    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toMatch(/^\[offline demo model\] This is the offline stand-in, not a language model/);
    expect(reply.content).toContain(MODEL_NOT_CONFIGURED);
  });
});

describe('the offline demo model: streaming and cancellation', () => {
  it('hands its text out in a few pieces that join to the reply', async () => {
    const deltas: ModelDelta[] = [];

    const reply = await model.complete({ messages: [SYSTEM, { role: 'user', content: '写一首诗' }], tools: originalTools, onDelta: (delta) => deltas.push(delta) });

    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.every((delta) => delta.kind === 'text' && delta.text !== '')).toBe(true);
    expect(deltas.map((delta) => delta.text).join('')).toBe(reply.content);
  });

  it('fails as an aborted model call when the caller’s signal is aborted, and as a timeout at a deadline', async () => {
    const messages: Message[] = [SYSTEM, { role: 'user', content: '上海天气怎么样？' }];
    const aborted = new AbortController();
    aborted.abort();

    await expect(model.complete({ messages, tools: originalTools, signal: aborted.signal })).rejects.toMatchObject({ code: 'model_aborted' });
    await expect(model.complete({ messages, tools: originalTools, signal: AbortSignal.abort(new DOMException('late', 'TimeoutError')) })).rejects.toMatchObject({
      code: 'model_timeout',
      timeout: true,
    });
  });
});

describe('readQuestion', () => {
  it('tells Chinese from English, and finds no city in a question about something else', () => {
    expect(readQuestion('上海有什么好吃的？')).toMatchObject({ language: 'zh', cities: [], asksWeather: false, asksNews: false });
    expect(readQuestion('Is it raining in Berlin?')).toMatchObject({ language: 'en', cities: ['Berlin'], asksWeather: true });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
