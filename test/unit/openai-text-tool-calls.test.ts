import { describe, expect, it } from 'vitest';
import { extractTextToolCalls } from '../../lib/adapters/openai/text-tool-calls.ts';

const tools = new Set(['getWeather', 'batchCancelOrdersByOrderNo']);
let counter = 0;
const makeId = () => `call_text${++counter}`;
const parse = (content: string) => extractTextToolCalls(content, tools, makeId);
const call = (name: string, args: unknown) => ({ id: expect.stringMatching(/^call_text\d+$/), name, arguments: JSON.stringify(args) });

describe('extractTextToolCalls', () => {
  it.each([
    ['hermes <tool_call> JSON (vLLM, Qwen)', '<tool_call>\n{"name": "getWeather", "arguments": {"city": "上海"}}\n</tool_call>'],
    ['Qwen3-Coder XML', '<tool_call>\n<function=getWeather>\n<parameter=city>\n上海\n</parameter>\n</function>\n</tool_call>'],
    ['a bare <function=...> block', '<function=getWeather><parameter=city>上海</parameter></function>'],
    ['a Llama python tag', '<|python_tag|>{"name": "getWeather", "parameters": {"city": "上海"}}'],
    ['a fenced JSON reply', '```json\n{"name": "getWeather", "arguments": {"city": "上海"}}\n```'],
    ['an OpenAI-shaped JSON reply', '{"type": "function", "function": {"name": "getWeather", "parameters": {"city": "上海"}}}'],
  ])('reads %s', (_, content) => {
    expect(parse(content)).toEqual({ content: null, calls: [call('getWeather', { city: '上海' })] });
  });

  it('reads parallel calls in order and keeps the surrounding text', () => {
    const content = 'Let me check.\n<tool_call>{"name": "batchCancelOrdersByOrderNo", "arguments": {"orderNos": ["ORD1"]}}</tool_call>\n<tool_call>{"name": "getWeather", "arguments": {"city": "北京"}}</tool_call>';
    expect(parse(content)).toEqual({
      content: 'Let me check.',
      calls: [call('batchCancelOrdersByOrderNo', { orderNos: ['ORD1'] }), call('getWeather', { city: '北京' })],
    });
  });

  it('parses XML parameter values as JSON when they are JSON', () => {
    const content = '<function=batchCancelOrdersByOrderNo><parameter=orderNos>["ORD1", "ORD2"]</parameter></function>';
    expect(parse(content)?.calls).toEqual([call('batchCancelOrdersByOrderNo', { orderNos: ['ORD1', 'ORD2'] })]);
  });

  it.each([
    ['plain text', '上海今天晴，22°C。'],
    ['a call to a tool that was not offered', '<tool_call>{"name": "deleteEverything", "arguments": {}}</tool_call>'],
    ['JSON that is not a call', '{"city": "上海", "temperature": 22}'],
    ['a block that is not JSON', '<tool_call>getWeather(上海)</tool_call>'],
    ['JSON inside a longer answer', 'The API takes {"name": "getWeather", "arguments": {"city": "x"}} as input.'],
  ])('leaves %s as text', (_, content) => {
    expect(parse(content)).toBeUndefined();
  });
});
