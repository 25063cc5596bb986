import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../lib/agent/loop/loop-events.ts';
import { historyViolations } from '../../lib/core/history.ts';
import type { ToolMessage } from '../../lib/core/messages.ts';
import { textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

const todos = (...items: Array<[string, string]>) => ({ todos: items.map(([content, status]) => ({ content, status })) });
const write = (id: string, list: ReturnType<typeof todos>) => ({ id, name: 'write_todos', arguments: list });
const toolMessages = (messages: readonly { role: string }[]) => messages.filter((message): message is ToolMessage => message.role === 'tool');

describe('todoList: true', () => {
  it('offers write_todos with when-to-use guidance, and says so in the system prompt', async () => {
    const { agent, model } = agentFixture([textReply('hi')], { yaml: 'todoList: true' });
    await agent.ask({ conversationId: 'plain', message: 'hello' });
    const request = model!.requests[0]!;
    const tool = request.tools.find((candidate) => candidate.name === 'write_todos');
    expect(tool?.description).toMatch(/three or more distinct steps/);
    expect(tool?.description).toMatch(/skip it for simple tasks/);
    expect(tool?.description).toMatch(/exactly one item "in_progress"/);
    expect(tool?.description).toMatch(/"completed" only when it is fully done/);
    expect(tool?.description).toMatch(/Never call this tool more than once in one reply/);
    expect(request.messages[0]!.content).toMatch(/## Todo list[\s\S]*Your todo list is empty\./);
  });

  it('keeps the list with the conversation, feeds it back every round, returns and streams it', async () => {
    const events: LoopEvent[] = [];
    const { agent, model } = agentFixture([
      toolCallsReply([write('t1', todos(['查上海天气', 'in_progress'], ['取消订单 ORD1', 'pending']))]),
      toolCallsReply([write('t2', todos(['查上海天气', 'completed'], ['取消订单 ORD1', 'in_progress']))]),
      textReply('好了'),
      textReply('还有什么?'),
    ], { yaml: 'todoList: true' });

    const result = await agent.ask({ conversationId: 'work', message: '查天气再取消订单', onEvent: (event) => events.push(event) });

    expect(result.todos).toEqual([{ content: '查上海天气', status: 'completed' }, { content: '取消订单 ORD1', status: 'in_progress' }]);
    expect(model!.requests[1]!.messages[0]!.content).toMatch(/\[in_progress\] 查上海天气\n- \[pending\] 取消订单 ORD1/);
    expect(model!.requests[2]!.messages[0]!.content).toMatch(/\[completed\] 查上海天气\n- \[in_progress\] 取消订单 ORD1/);
    expect(events.filter((event) => event.type === 'extension').map((event) => (event as { name: string }).name)).toEqual(['todos', 'todos']);
    expect(await agent.getConversation({ conversationId: 'work' })).toMatchObject({ todos: result.todos });

    await agent.ask({ conversationId: 'work', message: '下一步?' });
    expect(model!.requests[3]!.messages[0]!.content).toMatch(/\[in_progress\] 取消订单 ORD1/);
    expect(historyViolations(model!.requests[3]!.messages)).toEqual([]);
  });

  it('answers a second write_todos in one reply with an error and does not apply it', async () => {
    const { agent, model } = agentFixture([
      toolCallsReply([write('a', todos(['one', 'in_progress'])), write('b', todos(['two', 'in_progress']))]),
      textReply('ok'),
    ], { yaml: 'todoList: true' });

    const result = await agent.ask({ conversationId: 'twice', message: 'plan' });

    const answers = toolMessages(model!.requests[1]!.messages);
    expect(answers[0]!.content).toMatch(/^Todo list updated: 0 of 1 completed\.$/);
    expect(answers[1]!.content).toMatch(/called more than once in one reply; only the first call was applied/);
    expect(result.todos).toEqual([{ content: 'one', status: 'in_progress' }]);
    expect(result.toolCalls.map((call) => call.ok)).toEqual([true, false]);
  });

  it('reminds the model to mark an item in progress, and refuses a list that is not one', async () => {
    const { agent, model } = agentFixture([
      toolCallsReply([write('a', todos(['one', 'pending'])), { id: 'b', name: 'getWeather', arguments: { city: 'x' } }]),
      toolCallsReply([{ id: 'c', name: 'write_todos', arguments: { todos: [{ content: 'x', status: 'done' }] } }]),
      textReply('ok'),
    ], { yaml: 'todoList: true' });

    await agent.ask({ conversationId: 'hints', message: 'plan' });

    expect(toolMessages(model!.requests[1]!.messages)[0]!.content).toMatch(/Mark the item you work on next "in_progress"/);
    expect(toolMessages(model!.requests[2]!.messages).at(-1)!.content).toMatch(/invalid arguments for "write_todos"/);
  });

  it('offers nothing of the kind when off (the default)', async () => {
    const { agent, model } = agentFixture([textReply('hi')]);
    const result = await agent.ask({ conversationId: 'off', message: 'hello' });
    expect(model!.requests[0]!.tools.map((tool) => tool.name)).not.toContain('write_todos');
    expect(model!.requests[0]!.messages[0]!.content).not.toMatch(/Todo list/);
    expect(result).not.toHaveProperty('todos');
  });
});
