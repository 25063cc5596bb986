import { describe, expect, it } from 'vitest';
import { readChatMessages } from '../../lib/front-doors/openai-compatible/messages.ts';

describe('Chat Completions messages → the agent’s question, history and instructions', () => {
  it('takes the last user message as the question, system and developer messages as instructions, the rest as history', () => {
    // Prepare: a conversation a stateless client sends whole, tool round included.
    const messages = [
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: '上海天气?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'getWeather', arguments: '{"city":"上海"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"condition":"晴"}' },
      { role: 'assistant', content: '晴天' },
      { role: 'developer', content: [{ type: 'text', text: 'Use Celsius.' }] },
      { role: 'user', content: [{ type: 'text', text: '明天呢?' }, { type: 'text', text: '还有北京。' }] },
    ];

    // Act
    const read = readChatMessages(messages, { earlier: true });

    // Assess
    expect(read).toEqual({
      question: '明天呢?\n\n还有北京。',
      instructions: 'Answer briefly.\n\nUse Celsius.',
      earlierMessages: [
        { role: 'user', content: '上海天气?' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'getWeather', arguments: '{"city":"上海"}' }] },
        // The tool message's name is its call's: the wire carries only the id.
        { role: 'tool', toolCallId: 'call_1', name: 'getWeather', content: '{"condition":"晴"}' },
        { role: 'assistant', content: '晴天', toolCalls: [] },
      ],
    });
  });

  it('reads only the instructions and the question when a stored conversation continues', () => {
    const read = readChatMessages(
      [
        { role: 'system', content: 'Be kind.' },
        // Ignored, so not even checked: the stored conversation is the history.
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
        { role: 'user', content: 'And tomorrow?' },
      ],
      { earlier: false },
    );
    expect(read).toEqual({ question: 'And tomorrow?', instructions: 'Be kind.', earlierMessages: [] });
  });

  it('keeps an assistant’s text beside its calls, reads object arguments kindly, and leaves out empty instructions', () => {
    const read = readChatMessages(
      [
        { role: 'system', content: '' },
        { role: 'user', content: 'cancel ORD1' },
        { role: 'assistant', content: 'Cancelling.', tool_calls: [{ id: 'c', function: { name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } } }] },
        { role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: 'done' }] },
        { role: 'user', content: 'thanks' },
      ],
      { earlier: true },
    );
    expect(read.instructions).toBeUndefined();
    expect(read.earlierMessages[1]).toEqual({ role: 'assistant', content: 'Cancelling.', toolCalls: [{ id: 'c', name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNos":["ORD1"]}' }] });
    expect(read.earlierMessages[2]).toEqual({ role: 'tool', toolCallId: 'c', name: 'batchCancelOrdersByOrderNo', content: 'done' });
  });

  it.each([
    ['no messages', [], 'invalid_messages', 'messages'],
    ['messages that are not a list', { role: 'user', content: 'hi' }, 'invalid_messages', 'messages'],
    ['a message without a role', [{ content: 'hi' }], 'invalid_messages', 'messages[0]'],
    ['an assistant message last', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }], 'invalid_messages', 'messages[1].role'],
    ['only instructions', [{ role: 'system', content: 'be kind' }], 'invalid_messages', 'messages'],
    ['an empty question', [{ role: 'user', content: '  ' }], 'empty_message', 'messages[0].content'],
    ['an image', [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }], 'unsupported_content', 'messages[0].content[1].type'],
    ['audio', [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }], 'unsupported_content', 'messages[0].content[0].type'],
    ['a file in an earlier message', [{ role: 'user', content: [{ type: 'file', file: { file_id: 'f' } }] }, { role: 'user', content: 'hi' }], 'unsupported_content', 'messages[0].content[0].type'],
    ['content that is a number', [{ role: 'user', content: 42 }], 'invalid_messages', 'messages[0].content'],
    ['a text part without text', [{ role: 'user', content: [{ type: 'text' }] }], 'invalid_messages', 'messages[0].content[0]'],
    ['the deprecated function role', [{ role: 'function', name: 'f', content: 'x' }, { role: 'user', content: 'hi' }], 'unsupported_content', 'messages[0].role'],
    ['a deprecated function_call', [{ role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }, { role: 'user', content: 'hi' }], 'unsupported_content', 'messages[0].function_call'],
    ['an unknown role', [{ role: 'narrator', content: 'x' }, { role: 'user', content: 'hi' }], 'invalid_messages', 'messages[0].role'],
    ['a tool message without its call id', [{ role: 'tool', content: 'x' }, { role: 'user', content: 'hi' }], 'invalid_messages', 'messages[0].tool_call_id'],
    ['a call without an id', [{ role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'user', content: 'hi' }], 'invalid_messages', 'messages[0].tool_calls[0].id'],
    ['a call that is not a function', [{ role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'custom', custom: { name: 'f', input: '' } }] }, { role: 'user', content: 'hi' }], 'invalid_messages', 'messages[0].tool_calls[0]'],
  ])('refuses %s with %s, naming %s', (_, messages, code, param) => {
    expect(() => readChatMessages(messages, { earlier: true })).toThrow(expect.objectContaining({ code, param }));
  });
});
