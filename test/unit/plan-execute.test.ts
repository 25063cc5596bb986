import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../lib/agent/loop/loop-events.ts';
import { historyViolations } from '../../lib/core/history.ts';
import type { AssistantMessage, HistoryMessage, Message } from '../../lib/core/messages.ts';
import type { ModelReply, ModelRequest } from '../../lib/core/ports/model.ts';
import { textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

const YAML = 'strategy: plan-execute\nmaxRounds: 20';
const phase = (request: ModelRequest) => {
  const system = request.messages[0]!.content ?? '';
  if (system.includes('## Planning')) return 'planner';
  if (system.includes('## Final answer')) return 'summary';
  return 'executor';
};
const question = (request: ModelRequest) => (request.messages.at(-1)?.role === 'user' ? request.messages.at(-1)!.content : [...request.messages].reverse().find((message) => message.role === 'user')!.content) as string;
const asked = (request: ModelRequest) => request.messages.filter((message) => message.role !== 'system');
const called = (request: ModelRequest, name: string) => request.messages.some((message) => message.role === 'tool' && message.name === name);

/** A model that answers each request by what it is: a planning step, a task, or the summary. */
function byRequest(answer: (request: ModelRequest, kind: string) => ModelReply | Promise<ModelReply>, count = 40) {
  return Array.from({ length: count }, () => (request: ModelRequest) => answer(request, phase(request)));
}

const plan = (tasks: Array<{ title: string; independent?: boolean }>) => toolCallsReply([{ id: `plan_${Math.random().toString(36).slice(2, 8)}`, name: 'planning', arguments: { action: 'create', tasks } }]);
const toolRounds = (messages: HistoryMessage[]) => messages.filter((message) => message.role === 'tool' || (message.role === 'assistant' && message.toolCalls.length > 0));

describe('strategy: plan-execute', () => {
  it('plans, runs independent tasks side by side and the rest after them, then answers from their results', async () => {
    let startedSecond!: () => void;
    const secondStarted = new Promise<void>((resolve) => (startedSecond = resolve));
    const events: LoopEvent[] = [];
    const { agent, model, gateway } = agentFixture(byRequest(async (request, kind) => {
      const text = question(request);
      if (kind === 'planner') {
        if (text.startsWith('查上海和北京的天气，然后取消订单 ORD1') && !text.includes('Progress of the plan')) {
          return called(request, 'planning') ? textReply('计划好了。') : plan([{ title: '查上海天气', independent: true }, { title: '查北京天气', independent: true }, { title: '取消订单 ORD1' }]);
        }
        return textReply('continue');
      }
      if (kind === 'summary') return textReply('上海晴，北京多云；订单 ORD1 已取消。');
      if (text.startsWith('Task 1')) {
        // Only answers once task 2 has started: the two must run side by side.
        if (!called(request, 'getWeather')) {
          await secondStarted;
          return toolCallsReply([{ id: 'w_sh', name: 'getWeather', arguments: { city: '上海' } }]);
        }
        return textReply('上海：晴');
      }
      if (text.startsWith('Task 2')) {
        startedSecond();
        return called(request, 'getWeather') ? textReply('北京：多云') : toolCallsReply([{ id: 'w_bj', name: 'getWeather', arguments: { city: '北京' } }]);
      }
      return called(request, 'batchCancelOrdersByOrderNo') ? textReply('ORD1 已取消') : toolCallsReply([{ id: 'c_1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }]);
    }), { yaml: YAML });

    const result = await agent.ask({ conversationId: 'planned', message: '查上海和北京的天气，然后取消订单 ORD1', onEvent: (event) => events.push(event) });

    expect(result).toMatchObject({ stopReason: 'completed', reply: '上海晴，北京多云；订单 ORD1 已取消。' });
    expect(result.plan).toMatchObject({
      tasks: [
        { id: 1, title: '查上海天气', status: 'completed', result: '上海：晴', independent: true },
        { id: 2, title: '查北京天气', status: 'completed', result: '北京：多云', independent: true },
        { id: 3, title: '取消订单 ORD1', status: 'completed', result: 'ORD1 已取消', independent: false },
      ],
    });
    expect(result.toolCalls.map((call) => call.id).sort()).toEqual(['c_1', 'w_bj', 'w_sh']);
    expect(gateway.calls.map((call) => call.name).sort()).toEqual(['batchCancelOrdersByOrderNo', 'getWeather', 'getWeather']);
    // 2 planning calls, 2 + 2 + 2 executor calls, 1 revision, 1 summary.
    expect(result.rounds).toBe(model!.requests.length);

    // Each phase was asked what it is for, with what it may use.
    const planner = model!.requests.find((request) => phase(request) === 'planner')!;
    expect(planner.tools.map((tool) => tool.name)).toEqual(['planning']);
    const executor = model!.requests.find((request) => question(request).startsWith('Task 3'))!;
    expect(executor.tools.map((tool) => tool.name)).toEqual(['getWeather', 'batchCancelOrdersByOrderNo']);
    expect(executor.messages[0]!.content).toMatch(/The plan:\n1\. \[completed\] 查上海天气[\s\S]*Results of earlier tasks:\nTask 1 \(查上海天气\) \[completed\]:\n上海：晴/);
    const summary = model!.requests.find((request) => phase(request) === 'summary')!;
    expect(summary.tools).toEqual([]);
    expect(question(summary)).toMatch(/Results:\nTask 1 \(查上海天气\) \[completed\]:\n上海：晴[\s\S]*Task 3/);
    for (const request of model!.requests) expect(historyViolations(asked(request) as Message[])).toEqual([]);

    // The conversation keeps the question, the executors' calls and results, and the answer.
    const stored = (await agent.getConversation({ conversationId: 'planned' })).turns[0]!.messages;
    expect(stored[0]).toEqual({ role: 'user', content: '查上海和北京的天气，然后取消订单 ORD1' });
    expect(stored.at(-1)).toEqual({ role: 'assistant', content: '上海晴，北京多云；订单 ORD1 已取消。', toolCalls: [] });
    expect(toolRounds(stored)).toHaveLength(6);
    expect(stored).toHaveLength(8);
    expect(historyViolations(stored)).toEqual([]);
    expect((await agent.getConversation({ conversationId: 'planned' })).plan).toEqual(result.plan);

    const names = events.filter((event) => event.type === 'extension').map((event) => (event as { name: string }).name);
    expect(names.filter((name) => name === 'task-start')).toHaveLength(3);
    expect(names.filter((name) => name === 'task-end')).toHaveLength(3);
    expect(names[0]).toBe('plan');
    // Only the answer's text streams: the phases' own answers do not.
    expect(events.filter((event) => event.type === 'text-delta').map((event) => (event as { text: string }).text).join('')).toBe(result.reply);

    // Every model call of the turn has its own round number, in the order the calls start, tasks
    // side by side included; each event of a round carries its number (the page keys text by it).
    const starts = events.filter((event) => event.type === 'round-start').map((event) => (event as { round: number }).round);
    expect(starts).toEqual(Array.from({ length: result.rounds }, (_, index) => index + 1));
    const started = new Set<number>();
    for (const event of events) {
      if (event.type === 'round-start') started.add(event.round);
      else if ('round' in event) expect(started.has(event.round)).toBe(true);
    }
    const calls = events.filter((event) => event.type === 'tool-call').map((event) => (event as { round: number }).round);
    expect(new Set(calls).size).toBe(calls.length);
    expect(new Set(events.filter((event) => event.type === 'text-delta').map((event) => (event as { round: number }).round))).toEqual(new Set([result.rounds]));
  });

  it('stays within its bounds: a planner that never stops planning, an executor that never stops calling', async () => {
    let calls = 0;
    const { agent, model } = agentFixture(byRequest((request, kind) => {
      calls += 1;
      if (kind === 'planner') {
        return called(request, 'planning')
          ? toolCallsReply([{ id: `again_${calls}`, name: 'planning', arguments: { action: 'update', tasks: [{ title: 'Loop forever' }] } }])
          : plan([{ title: 'Loop forever' }]);
      }
      if (kind === 'summary') return textReply('I could not finish: the task kept going.');
      return toolCallsReply([{ id: `w_${calls}`, name: 'getWeather', arguments: { city: '上海' } }]);
    }), { yaml: 'strategy: plan-execute\nmaxRounds: 12\nplanner: { maxRounds: 2 }\nexecutor: { maxRounds: 3 }' });

    const result = await agent.ask({ conversationId: 'bounded', message: 'Do it' });

    expect(result.rounds).toBeLessThanOrEqual(12);
    expect(model!.requests.length).toBe(result.rounds);
    expect(result.stopReason).toBe('completed');
    expect(result.plan!.tasks.every((task) => task.status !== 'in_progress')).toBe(true);
    expect(result.plan!.tasks.some((task) => task.status === 'blocked' && /stopped before it was done: max_rounds/.test(task.result ?? ''))).toBe(true);
    expect(historyViolations((await agent.getConversation({ conversationId: 'bounded' })).turns[0]!.messages)).toEqual([]);
  });

  it('runs tasks one at a time when a tool may need approval, pauses in a task, and goes on with the plan after the decision', async () => {
    const { agent, model, gateway } = agentFixture(byRequest((request, kind) => {
      const text = question(request);
      if (kind === 'planner') return text.includes('Progress of the plan') ? textReply('continue') : called(request, 'planning') ? textReply('ok') : plan([{ title: '取消订单 ORD7', independent: true }, { title: '查上海天气', independent: true }]);
      if (kind === 'summary') return textReply('ORD7 已取消，上海晴。');
      if (text.startsWith('Task 1')) return called(request, 'batchCancelOrdersByOrderNo') ? textReply('ORD7 已取消') : toolCallsReply([{ id: 'c_7', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD7'] } }]);
      return called(request, 'getWeather') ? textReply('上海：晴') : toolCallsReply([{ id: 'w_1', name: 'getWeather', arguments: { city: '上海' } }]);
    }), { yaml: `${YAML}\nmcpServers:\n  fake: { command: unused, requireApproval: destructive }` });

    const paused = await agent.ask({ conversationId: 'approve-plan', message: '取消 ORD7 并查天气' });
    expect(paused).toMatchObject({ stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'c_7', name: 'batchCancelOrdersByOrderNo' }] });
    // One task at a time: the weather task has not started.
    expect(model!.requests.some((request) => question(request).startsWith('Task 2'))).toBe(false);
    expect(paused.plan!.tasks.map((task) => task.status)).toEqual(['in_progress', 'not_started']);

    const requestsBeforeDecision = model!.requests.length;
    const done = await agent.decide({ conversationId: 'approve-plan', decisions: [{ toolCallId: 'c_7', approved: true }] });
    expect(done).toMatchObject({ stopReason: 'completed', reply: 'ORD7 已取消，上海晴。' });
    // After the decision: task 1 ends, the planner may revise the plan as after any task, then task 2.
    const afterDecision = model!.requests.slice(requestsBeforeDecision);
    expect(afterDecision.map((request) => (phase(request) === 'executor' ? question(request).split(':')[0] : phase(request)))).toEqual(['Task 1', 'planner', 'Task 2', 'Task 2', 'summary']);
    expect(question(afterDecision[1]!)).toMatch(/Progress of the plan:\n1\. \[completed\] 取消订单 ORD7 \[independent\]\n2\. \[not_started\] 查上海天气[\s\S]*Results so far:\nTask 1 \(取消订单 ORD7\) \[completed\]:\nORD7 已取消/);
    expect(done.plan!.tasks.map((task) => [task.status, task.result])).toEqual([['completed', 'ORD7 已取消'], ['completed', '上海：晴']]);
    expect(gateway.calls.map((call) => call.name)).toEqual(['batchCancelOrdersByOrderNo', 'getWeather']);
    const stored = (await agent.getConversation({ conversationId: 'approve-plan' })).turns[0]!.messages;
    expect(historyViolations(stored)).toEqual([]);
    expect(toolRounds(stored).map((message) => (message.role === 'tool' ? message.toolCallId : (message as AssistantMessage).toolCalls[0]!.id))).toEqual(['c_7', 'c_7', 'w_1', 'w_1']);
  });
});
