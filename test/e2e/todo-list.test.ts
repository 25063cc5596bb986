import { describe, expect, it } from 'vitest';
import { TODO_PROMPT } from '../../lib/extensions/todo-list.ts';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/config/schema.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { cancelOrders, weatherFor } from '../../lib/demo/tools.ts';
import { demoServerYml, getJson, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { postForEvents } from '../support/sse-client.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';
import { completionBodies, systemPromptOf, toolAnswers, toolNames, wireMessages, wireTools, wireViolations } from '../support/wire-requests.ts';

type Todo = { content: string; status: 'pending' | 'in_progress' | 'completed' };
const todo = (content: string, status: Todo['status']): Todo => ({ content, status });
const FIRST = [todo('查上海天气', 'in_progress'), todo('查北京天气', 'pending')];
const SECOND = [todo('查上海天气', 'completed'), todo('查北京天气', 'in_progress')];
const DONE = [todo('查上海天气', 'completed'), todo('查北京天气', 'completed')];
const listed = (todos: Todo[]) => `Your current todo list:\n${todos.map((item) => `- [${item.status}] ${item.content}`).join('\n')}`;
const prompt = (current: string) => `${DEFAULT_SYSTEM_PROMPT}\n\n${TODO_PROMPT}\n\n${current}`;

describe('todoList: true through npm start', () => {
  const servers = serversPerTest();

  it('offers write_todos, feeds the list back every round and in the next turn after a restart, streams and stores it', async () => {
    // Prepare
    const ANSWER = `上海${weatherFor('上海').condition}，北京${weatherFor('北京').condition}。`;
    const model = await servers.model([
      toolCallsReply([{ id: 'todo_1', name: 'write_todos', arguments: { todos: FIRST } }]),
      toolCallsReply([{ id: 'weather_sh', name: 'getWeather', arguments: { city: '上海' } }]),
      toolCallsReply([{ id: 'todo_2', name: 'write_todos', arguments: { todos: SECOND } }, { id: 'weather_bj', name: 'getWeather', arguments: { city: '北京' } }]),
      toolCallsReply([{ id: 'todo_3', name: 'write_todos', arguments: { todos: DONE } }]),
      textReply(ANSWER),
      textReply('还需要查别的城市吗？'),
    ]);
    const local = await servers.local(`todoList: true\nmodel: { maxRetries: 0 }\n${demoServerYml()}`, model);

    // Act
    const exchange = await postForEvents(`${local.server.url}/conversations/todos/messages`, { body: { message: '查一下上海和北京的天气' } });

    // Assess: what the model received in each round.
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(5);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
    expect(toolNames(bodies[0]!)).toEqual(['foo', 'getWeather', 'getNews', 'batchCancelOrdersByOrderNo', 'write_todos']);
    const writeTodos = wireTools(bodies[0]!).find((tool) => tool.function.name === 'write_todos')!.function;
    expect(writeTodos.description).toMatch(/three or more distinct steps/);
    expect(writeTodos.parameters).toMatchObject({ required: ['todos'], properties: { todos: { type: 'array' } } });
    expect(bodies.map(systemPromptOf)).toEqual([
      prompt('Your todo list is empty.'),
      prompt(listed(FIRST)),
      prompt(listed(FIRST)),
      prompt(listed(SECOND)),
      prompt(listed(DONE)),
    ]);
    expect(toolAnswers(bodies[1]!).map((message) => [message.tool_call_id, message.name, message.content])).toEqual([['todo_1', 'write_todos', 'Todo list updated: 0 of 2 completed.']]);
    expect(toolAnswers(bodies[4]!).at(-1)).toMatchObject({ tool_call_id: 'todo_3', content: 'Todo list updated: 2 of 2 completed.' });

    // Assess: the stream and the result.
    expect(exchange.events.filter((event) => event.event === 'todos').map((event) => event.data)).toEqual([{ todos: FIRST }, { todos: SECOND }, { todos: DONE }]);
    // Each list streams while its round runs, before the next round starts.
    const names = exchange.events.map((event) => event.event);
    expect(names.indexOf('todos')).toBeLessThan(names.indexOf('round-start', 1));
    const turnEnd = exchange.events.find((event) => event.event === 'turn-end')!.data as any;
    expect(turnEnd).toMatchObject({ stopReason: 'completed', reply: ANSWER, rounds: 5, todos: DONE });
    expect(turnEnd.toolCalls.map((call: any) => [call.name, call.ok])).toEqual([['write_todos', true], ['getWeather', true], ['write_todos', true], ['getWeather', true], ['write_todos', true]]);

    // Assess: the stored conversation, after a restart.
    await local.restart();
    const view = await getJson(`${local.server.url}/conversations/todos`);
    expect(view.body.todos).toEqual(DONE);
    const stored = view.body.turns[0].messages;
    expect(historyViolations(stored)).toEqual([]);
    expect(stored.filter((message: any) => message.role === 'tool').map((message: any) => message.toolCallId)).toEqual(['todo_1', 'weather_sh', 'todo_2', 'weather_bj', 'todo_3']);

    // Act: the next turn sees the list it left.
    const next = await postJson(`${local.server.url}/conversations/todos/messages`, { message: '好的' });

    // Assess
    expect(next).toMatchObject({ status: 200, body: { turn: 2, reply: '还需要查别的城市吗？', todos: DONE } });
    const nextBody = completionBodies(model)[5]!;
    expect(systemPromptOf(nextBody)).toBe(prompt(listed(DONE)));
    expect(wireMessages(nextBody).at(-1)).toEqual({ role: 'user', content: '好的' });
    expect(wireMessages(nextBody)).toHaveLength(1 + stored.length + 1);
    expect(wireViolations(nextBody)).toEqual([]);
  });

  it('keeps the list through a pause for approval, and feeds it back when the decided turn goes on', async () => {
    // Prepare: the first reply writes the list and asks to cancel an order, which needs approval.
    const ORDER = 'ORD20250514118567';
    const CANCEL = [todo(`取消订单 ${ORDER}`, 'in_progress'), todo('查上海天气', 'pending')];
    const WEATHER = [todo(`取消订单 ${ORDER}`, 'completed'), todo('查上海天气', 'in_progress')];
    const FINISHED = [todo(`取消订单 ${ORDER}`, 'completed'), todo('查上海天气', 'completed')];
    const model = await servers.model([
      toolCallsReply([{ id: 'todo_a', name: 'write_todos', arguments: { todos: CANCEL } }, { id: 'cancel_1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: [ORDER] } }]),
      toolCallsReply([{ id: 'todo_b', name: 'write_todos', arguments: { todos: WEATHER } }, { id: 'weather_1', name: 'getWeather', arguments: { city: '上海' } }]),
      toolCallsReply([{ id: 'todo_c', name: 'write_todos', arguments: { todos: FINISHED } }]),
      textReply('订单已取消，上海天气已查。'),
    ]);
    const local = await servers.local(`todoList: true\nmodel: { maxRetries: 0 }\n${demoServerYml(', requireApproval: [batchCancelOrdersByOrderNo]')}`, model);
    const url = local.server.url;

    // Act: the turn pauses with the list written.
    const paused = await postJson(`${url}/conversations/todo-approval/messages`, { message: `取消订单 ${ORDER}，再查上海天气` });

    // Assess
    expect(paused).toMatchObject({ status: 200, body: { stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'cancel_1' }], todos: CANCEL } });
    expect((await getJson(`${url}/conversations/todo-approval`)).body.todos).toEqual(CANCEL);

    // Act: approve, watching the rest of the turn.
    const resumed = await postForEvents(`${url}/conversations/todo-approval/approvals`, { body: { decisions: [{ toolCallId: 'cancel_1', approved: true }] } });

    // Assess: the next request carries the list as it stood at the pause, and the approved call's result.
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(4);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
    expect(bodies.map(systemPromptOf)).toEqual([prompt('Your todo list is empty.'), prompt(listed(CANCEL)), prompt(listed(WEATHER)), prompt(listed(FINISHED))]);
    expect(toolAnswers(bodies[1]!).map((message) => [message.tool_call_id, message.name])).toEqual([['todo_a', 'write_todos'], ['cancel_1', 'batchCancelOrdersByOrderNo']]);
    expect(JSON.parse(toolAnswers(bodies[1]!)[1]!.content!)).toEqual(cancelOrders([ORDER]));
    expect(resumed.events.filter((event) => event.event === 'todos').map((event) => event.data)).toEqual([{ todos: WEATHER }, { todos: FINISHED }]);
    const turnEnd = resumed.events.find((event) => event.event === 'turn-end')!.data as any;
    expect(turnEnd).toMatchObject({ turn: 1, stopReason: 'completed', todos: FINISHED });
    const view = (await getJson(`${url}/conversations/todo-approval`)).body;
    expect(view.todos).toEqual(FINISHED);
    expect(historyViolations(view.turns[0].messages)).toEqual([]);
  });
});
