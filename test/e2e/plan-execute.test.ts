import { describe, expect, it } from 'vitest';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/config/schema.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { cancelOrders, newsFor, weatherFor } from '../../lib/demo/tools.ts';
import { demoServerYml, getJson, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { eventNames, postForEvents } from '../support/sse-client.ts';
import { textReply, toolCallsReply, type ChatRequestBody } from '../support/scripted-openai-server.ts';
import { answered, completionBodies, questionOf, systemPromptOf, toolAnswers, toolNames, wireMessages, wireViolations } from '../support/wire-requests.ts';

/** The demo server's tools, in the order it lists them. */
const DEMO_TOOLS = ['foo', 'getWeather', 'getNews', 'batchCancelOrdersByOrderNo'];

/** What a request is for, told by the part of the system prompt each phase gets. */
function phaseOf(body: ChatRequestBody): 'planner' | 'executor' | 'summary' {
  const system = systemPromptOf(body);
  if (system.includes('## Planning')) return 'planner';
  if (system.includes('## Final answer')) return 'summary';
  if (system.includes('## Your task')) return 'executor';
  throw new Error(`a request of no plan-execute phase: ${system}`);
}

const createPlan = (id: string, tasks: Array<{ title: string; details?: string; independent?: boolean }>) =>
  toolCallsReply([{ id, name: 'planning', arguments: { action: 'create', tasks } }]);

/** Resolves true when `promise` settles within `ms`, false otherwise: a liveness bound, not a timing assert. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]).finally(() => clearTimeout(timer));
}

const toolRounds = (messages: Array<{ role: string; toolCalls?: unknown[] }>) => messages.filter((message) => message.role === 'tool' || (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0));

describe('strategy: plan-execute through npm start', () => {
  const servers = serversPerTest();

  it('plans, runs independent tasks side by side, feeds their results to the next task and the summary, and stores only the tool rounds and the answer', async () => {
    // Prepare: a model that answers each request by what it is for.
    const QUESTION = '查上海和北京的天气，然后查科技新闻';
    const SHANGHAI = `上海：${weatherFor('上海').condition}`;
    const BEIJING = `北京：${weatherFor('北京').condition}`;
    const NEWS = `科技：${newsFor(1).headlines[0]}`;
    const ANSWER = `${SHANGHAI}；${BEIJING}；${NEWS}`;
    let secondTaskAsked!: () => void;
    const secondTask = new Promise<void>((resolve) => (secondTaskAsked = resolve));
    const model = await servers.model(async (body) => {
      const request = questionOf(body);
      switch (phaseOf(body)) {
        case 'planner':
          if (request.includes('Progress of the plan')) return textReply('continue');
          if (request === '广州呢？') return answered(body, 'planning') ? textReply('好。') : createPlan('plan_2', [{ title: '查广州天气' }]);
          return answered(body, 'planning')
            ? textReply('计划好了。')
            : createPlan('plan_1', [{ title: '查上海天气', independent: true }, { title: '查北京天气', independent: true }, { title: '查科技新闻', details: '新闻类别 1' }]);
        case 'summary':
          return textReply(request.startsWith('广州呢？') ? `广州：${weatherFor('广州').condition}` : ANSWER);
        case 'executor':
          if (request.startsWith('Task 1: 查上海天气')) {
            if (answered(body, 'getWeather')) return textReply(SHANGHAI);
            // Task 1 calls its tool only once task 2 has asked too: they must run side by side.
            return (await within(secondTask, 20_000)) ? toolCallsReply([{ id: 'call_sh', name: 'getWeather', arguments: { city: '上海' } }]) : textReply('task 2 never started beside task 1');
          }
          if (request.startsWith('Task 2: 查北京天气')) {
            secondTaskAsked();
            return answered(body, 'getWeather') ? textReply(BEIJING) : toolCallsReply([{ id: 'call_bj', name: 'getWeather', arguments: { city: '北京' } }]);
          }
          if (request.startsWith('Task 3: 查科技新闻')) return answered(body, 'getNews') ? textReply(NEWS) : toolCallsReply([{ id: 'call_news', name: 'getNews', arguments: { categorys: [1] } }]);
          if (request.startsWith('Task 1: 查广州天气')) return answered(body, 'getWeather') ? textReply(`广州：${weatherFor('广州').condition}`) : toolCallsReply([{ id: 'call_gz', name: 'getWeather', arguments: { city: '广州' } }]);
      }
      return undefined;
    });
    const local = await servers.local(`strategy: plan-execute\nmaxRounds: 20\nmodel: { maxRetries: 0 }\n${demoServerYml()}`, model);
    const url = local.server.url;

    // Act
    const exchange = await postForEvents(`${url}/conversations/planned/messages`, { body: { message: QUESTION } });

    // Assess: the stream.
    expect(exchange.status).toBe(200);
    const turnEnd = exchange.events.find((event) => event.event === 'turn-end')?.data as any;
    expect(turnEnd, JSON.stringify(exchange.events)).toMatchObject({ conversationId: 'planned', turn: 1, stopReason: 'completed', reply: ANSWER, rounds: 10 });
    expect(turnEnd.plan).toEqual({
      tasks: [
        { id: 1, title: '查上海天气', independent: true, status: 'completed', result: SHANGHAI },
        { id: 2, title: '查北京天气', independent: true, status: 'completed', result: BEIJING },
        { id: 3, title: '查科技新闻', details: '新闻类别 1', independent: false, status: 'completed', result: NEWS },
      ],
    });
    expect(turnEnd.toolCalls.map((call: any) => [call.id, call.name, call.ok])).toEqual([['call_sh', 'getWeather', true], ['call_bj', 'getWeather', true], ['call_news', 'getNews', true]]);
    const strategyEvents = exchange.events.filter((event) => ['plan', 'task-start', 'task-end'].includes(event.event));
    expect(strategyEvents.map((event) => event.event)).toEqual(['plan', 'plan', 'task-start', 'task-start', 'task-end', 'task-end', 'task-start', 'task-end']);
    expect((strategyEvents[0]!.data as any).plan.tasks.map((task: any) => task.status)).toEqual(['not_started', 'not_started', 'not_started']);
    expect(strategyEvents.slice(2).map((event) => event.data)).toEqual([
      { taskId: 1, title: '查上海天气' },
      { taskId: 2, title: '查北京天气' },
      { taskId: 1, status: 'completed', result: SHANGHAI },
      { taskId: 2, status: 'completed', result: BEIJING },
      { taskId: 3, title: '查科技新闻' },
      { taskId: 3, status: 'completed', result: NEWS },
    ]);
    // The executors' calls stream as usual; only the summary's text streams as the answer.
    const names = eventNames(exchange);
    expect(names.at(-1)).toBe('turn-end');
    // Tasks 1 and 2 ran side by side: their results come in either order, task 3's after both.
    const results = exchange.events.filter((event) => event.event === 'tool-result' && (event.data as any).name !== 'planning').map((event) => (event.data as any).id);
    expect([...results.slice(0, 2)].sort()).toEqual(['call_bj', 'call_sh']);
    expect(results[2]).toBe('call_news');
    expect(exchange.events.filter((event) => event.event === 'text-delta').map((event) => (event.data as any).text).join('')).toBe(ANSWER);

    // Assess: the requests the model received, one per round.
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(10);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
    for (const body of bodies) expect(systemPromptOf(body).startsWith(DEFAULT_SYSTEM_PROMPT)).toBe(true);
    expect(bodies.map(phaseOf)).toEqual(['planner', 'planner', 'executor', 'executor', 'executor', 'executor', 'planner', 'executor', 'executor', 'summary']);
    const [planner] = bodies;
    expect(toolNames(planner!)).toEqual(['planning']);
    expect(wireMessages(planner!).slice(1)).toEqual([{ role: 'user', content: QUESTION }]);
    const executors = bodies.filter((body) => phaseOf(body) === 'executor');
    for (const body of executors) expect(toolNames(body)).toEqual(DEMO_TOOLS);
    const firstOfTask = (task: string) => executors.find((body) => questionOf(body).startsWith(task))!;
    expect(questionOf(firstOfTask('Task 1'))).toBe(`Task 1: 查上海天气\n\n(Part of the user's request: ${QUESTION})`);
    expect(systemPromptOf(firstOfTask('Task 1'))).toContain('The plan:\n1. [in_progress] 查上海天气 [independent]\n2. [in_progress] 查北京天气 [independent]\n3. [not_started] 查科技新闻 (新闻类别 1)\n\nResults of earlier tasks:\n(no task has finished yet)');
    expect(systemPromptOf(firstOfTask('Task 3'))).toContain(`3. [in_progress] 查科技新闻 (新闻类别 1)\n\nResults of earlier tasks:\nTask 1 (查上海天气) [completed]:\n${SHANGHAI}\n\nTask 2 (查北京天气) [completed]:\n${BEIJING}`);
    const revision = bodies[6]!;
    expect(questionOf(revision)).toBe(`${QUESTION}\n\nProgress of the plan:\n1. [completed] 查上海天气 [independent]\n2. [completed] 查北京天气 [independent]\n3. [not_started] 查科技新闻 (新闻类别 1)\n\nResults so far:\nTask 1 (查上海天气) [completed]:\n${SHANGHAI}\n\nTask 2 (查北京天气) [completed]:\n${BEIJING}`);
    const summary = bodies[9]!;
    expect(summary.tools).toBeUndefined();
    expect(systemPromptOf(summary)).toContain('## Final answer');
    expect(questionOf(summary)).toContain(`Results:\nTask 1 (查上海天气) [completed]:\n${SHANGHAI}\n\nTask 2 (查北京天气) [completed]:\n${BEIJING}\n\nTask 3 (查科技新闻) [completed]:\n${NEWS}`);
    // A tool's answer went back to the executor that called it, under its call's id.
    expect(toolAnswers(bodies[8]!).map((message) => [message.tool_call_id, JSON.parse(message.content!)])).toEqual([['call_news', { news: [newsFor(1)] }]]);

    // Assess: the stored turn.
    const view = await getJson(`${url}/conversations/planned`);
    expect(view.status).toBe(200);
    const stored = view.body.turns[0].messages;
    expect(stored[0]).toEqual({ role: 'user', content: QUESTION });
    expect(stored.at(-1)).toEqual({ role: 'assistant', content: ANSWER, toolCalls: [] });
    expect(toolRounds(stored).map((message: any) => message.toolCallId ?? message.toolCalls[0].id)).toEqual(['call_sh', 'call_sh', 'call_bj', 'call_bj', 'call_news', 'call_news']);
    expect(stored).toHaveLength(8);
    expect(historyViolations(stored)).toEqual([]);
    expect(view.body.plan).toEqual(turnEnd.plan);

    // Act: a second question in the same conversation plans anew, on the stored history.
    const next = await postJson(`${url}/conversations/planned/messages`, { message: '广州呢？' });

    // Assess
    expect(next).toMatchObject({ status: 200, body: { turn: 2, stopReason: 'completed', reply: `广州：${weatherFor('广州').condition}`, rounds: 5 } });
    expect(next.body.plan.tasks).toEqual([{ id: 1, title: '查广州天气', independent: false, status: 'completed', result: `广州：${weatherFor('广州').condition}` }]);
    const secondPlanner = completionBodies(model)[10]!;
    expect(wireMessages(secondPlanner).slice(1)).toEqual([...stored.map(toWireShape), { role: 'user', content: '广州呢？' }]);
    for (const body of completionBodies(model).slice(10)) expect(wireViolations(body)).toEqual([]);
    expect((await getJson(`${url}/conversations/planned`)).body.plan).toEqual(next.body.plan);
  });

  it('stays within maxRounds when the planner never stops planning and an executor never stops calling tools', async () => {
    const model = await servers.model((body, index) => {
      switch (phaseOf(body)) {
        case 'planner':
          return answered(body, 'planning')
            ? toolCallsReply([{ id: `replan_${index}`, name: 'planning', arguments: { action: 'update', tasks: [{ title: 'Check the weather again' }] } }])
            : createPlan(`plan_${index}`, [{ title: 'Check the weather' }, { title: 'Check it once more' }]);
        case 'executor':
          return toolCallsReply([{ id: `loop_${index}`, name: 'getWeather', arguments: { city: '上海' } }]);
        case 'summary':
          return textReply('I could not finish: the tasks kept going.');
      }
    });
    const local = await servers.local(`strategy: plan-execute\nmaxRounds: 10\nplanner: { maxRounds: 2 }\nexecutor: { maxRounds: 3 }\nmodel: { maxRetries: 0 }\n${demoServerYml()}`, model);

    const result = await postJson(`${local.server.url}/conversations/bounded/messages`, { message: 'Check the weather until you are sure' });

    expect(result.status).toBe(200);
    const bodies = completionBodies(model);
    expect(result.body).toMatchObject({ stopReason: 'completed', reply: 'I could not finish: the tasks kept going.', rounds: bodies.length });
    // Each phase within its own bound (planning 2 calls, a task 3), the second task within what
    // the turn had left (2 calls), and a round kept back for the summary: 10 in all, maxRounds.
    expect(bodies.map(phaseOf)).toEqual(['planner', 'planner', 'executor', 'executor', 'executor', 'planner', 'planner', 'executor', 'executor', 'summary']);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
    // The last call of a phase at its bound was answered, not run: the executor heard so.
    const plan = result.body.plan;
    expect(plan.tasks.every((task: any) => task.status === 'blocked' || task.status === 'not_started')).toBe(true);
    expect(plan.tasks.filter((task: any) => task.status === 'blocked').map((task: any) => task.result)).toEqual([
      expect.stringMatching(/The task stopped before it was done: max_rounds/),
      expect.stringMatching(/The task stopped before it was done: max_rounds/),
    ]);
    const stored = (await getJson(`${local.server.url}/conversations/bounded`)).body.turns[0].messages;
    expect(historyViolations(stored)).toEqual([]);
    expect(stored.filter((message: any) => message.role === 'tool' && /^Not executed/.test(message.content))).toHaveLength(2);
    // The calls that ran are the turn's toolCalls; the two answered "not executed" never ran.
    expect(result.body.toolCalls.map((call: any) => call.id)).toEqual(stored.filter((message: any) => message.role === 'tool' && !/^Not executed/.test(message.content)).map((message: any) => message.toolCallId));
  });

  it('runs one task at a time when a tool needs approval, pauses inside a task, and goes on with the plan after POST /approvals', async () => {
    const ORDER = 'ORD20250514118567';
    const model = await servers.model((body) => {
      const request = questionOf(body);
      switch (phaseOf(body)) {
        case 'planner':
          if (request.includes('Progress of the plan')) return textReply('continue');
          return answered(body, 'planning') ? textReply('ok') : createPlan('plan_1', [{ title: `取消订单 ${ORDER}`, independent: true }, { title: '查上海天气', independent: true }]);
        case 'executor':
          if (request.startsWith('Task 1')) return answered(body, 'batchCancelOrdersByOrderNo') ? textReply(`${ORDER} 已取消`) : toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: [ORDER] } }]);
          return answered(body, 'getWeather') ? textReply('上海：晴') : toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]);
        case 'summary':
          return textReply(`${ORDER} 已取消；上海：晴。`);
      }
    });
    const local = await servers.local(`strategy: plan-execute\nmaxRounds: 20\nmodel: { maxRetries: 0 }\n${demoServerYml(', requireApproval: [batchCancelOrdersByOrderNo]')}`, model);
    const url = local.server.url;

    // Act: the turn pauses inside task 1.
    const paused = await postJson(`${url}/conversations/plan-approval/messages`, { message: `取消订单 ${ORDER}，再查上海天气` });

    // Assess
    expect(paused).toMatchObject({
      status: 200,
      body: { stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'call_cancel', name: 'batchCancelOrdersByOrderNo', server: 'demo', arguments: { orderNos: [ORDER] } }] },
    });
    expect(paused.body.plan.tasks.map((task: any) => task.status)).toEqual(['in_progress', 'not_started']);
    // One task at a time although both are independent: task 2 has not been asked.
    expect(completionBodies(model).map((body) => questionOf(body).split('\n')[0])).toEqual([`取消订单 ${ORDER}，再查上海天气`, `取消订单 ${ORDER}，再查上海天气`, `Task 1: 取消订单 ${ORDER}`]);
    const pausedView = (await getJson(`${url}/conversations/plan-approval`)).body;
    expect(pausedView.turns[0]).toMatchObject({ stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'call_cancel' }] });
    expect(pausedView.plan).toEqual(paused.body.plan);

    // Act: approve, watching the rest of the turn as events.
    const resumed = await postForEvents(`${url}/conversations/plan-approval/approvals`, { body: { decisions: [{ toolCallId: 'call_cancel', approved: true }] } });

    // Assess
    expect(resumed.status).toBe(200);
    const turnEnd = resumed.events.find((event) => event.event === 'turn-end')?.data as any;
    expect(turnEnd, JSON.stringify(resumed.events)).toMatchObject({ turn: 1, stopReason: 'completed', reply: `${ORDER} 已取消；上海：晴。` });
    expect(turnEnd.plan.tasks.map((task: any) => [task.status, task.result])).toEqual([['completed', `${ORDER} 已取消`], ['completed', '上海：晴']]);
    expect(eventNames(resumed).filter((name) => ['tool-result', 'task-start', 'task-end'].includes(name))).toEqual(['tool-result', 'task-end', 'task-start', 'tool-result', 'task-end']);
    const bodies = completionBodies(model);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
    // The executor of task 1 went on with the approved call's real result under its id.
    const afterApproval = bodies[3]!;
    expect(questionOf(afterApproval)).toMatch(/^Task 1: /);
    expect(toolAnswers(afterApproval).map((message) => [message.tool_call_id, JSON.parse(message.content!)])).toEqual([['call_cancel', cancelOrders([ORDER])]]);
    // After the pause: task 1 goes on, the planner may revise the plan (as after any task), then
    // task 2, then the summary.
    expect(bodies.slice(3).map((body) => (phaseOf(body) === 'executor' ? questionOf(body).split(':')[0] : phaseOf(body)))).toEqual(['Task 1', 'planner', 'Task 2', 'Task 2', 'summary']);
    expect(questionOf(bodies[4]!)).toContain(`Progress of the plan:\n1. [completed] 取消订单 ${ORDER} [independent]\n2. [not_started] 查上海天气 [independent]`);
    const stored = (await getJson(`${url}/conversations/plan-approval`)).body;
    expect(stored.turns[0].stopReason).toBe('completed');
    expect(historyViolations(stored.turns[0].messages)).toEqual([]);
    expect(toolRounds(stored.turns[0].messages).map((message: any) => message.toolCallId ?? message.toolCalls[0].id)).toEqual(['call_cancel', 'call_cancel', 'call_weather', 'call_weather']);
    expect(stored.plan).toEqual(turnEnd.plan);
  });

  describe('a summary call answered with a tool call (the summary is offered none)', () => {
    /** One task that checks the weather, then a summary that asks for a tool: `summaryText` beside it, or none. */
    const modelWhoseSummaryCallsATool = (summaryText: string | null) =>
      servers.model((body, index) => {
        switch (phaseOf(body)) {
          case 'planner':
            return answered(body, 'planning') ? textReply('ok') : createPlan(`plan_${index}`, [{ title: '查上海天气' }]);
          case 'executor':
            return answered(body, 'getWeather') ? textReply('上海：多云') : toolCallsReply([{ id: 'w_1', name: 'getWeather', arguments: { city: '上海' } }]);
          case 'summary': {
            const reply = toolCallsReply([{ id: 'summary_call', name: 'getNews', arguments: { topic: '上海' } }]) as any;
            reply.choices[0].message.content = summaryText;
            return reply;
          }
        }
      });

    it('fails the turn with model_bad_response saying so, with the real count of model calls, never max_rounds', async () => {
      const model = await modelWhoseSummaryCallsATool(null);
      const local = await servers.local(`strategy: plan-execute\nmaxRounds: 20\nmodel: { maxRetries: 0 }\n${demoServerYml()}`, model);

      const result = await postJson(`${local.server.url}/conversations/summary-tool/messages`, { message: '上海天气怎么样？' });

      // Planner, planner, executor, executor, summary: 5 model calls of the 20 allowed.
      expect(completionBodies(model).map(phaseOf)).toEqual(['planner', 'planner', 'executor', 'executor', 'summary']);
      // The tool ran, so the turn is stored: it is the answer (200), and says what happened.
      expect(result.status).toBe(200);
      const turn = result.body;
      expect(turn).toMatchObject({ stopReason: 'error', rounds: 5, error: { code: 'model_bad_response' }, toolCalls: [{ id: 'w_1', name: 'getWeather', ok: true }] });
      expect(turn.error.message).toMatch(/asked for getNews instead of writing the answer/);
      expect(turn.error.message).toMatch(/after 5 model calls/);
      expect(turn.reply).not.toMatch(/I stopped after|20 rounds/);
      expect(turn.reply).toMatch(/after 5 model calls/);
      // The summary's call never ran, and is not in the conversation: the history stays valid.
      const stored = (await getJson(`${local.server.url}/conversations/summary-tool`)).body.turns[0];
      expect(stored.stopReason).toBe('error');
      expect(historyViolations(stored.messages)).toEqual([]);
      expect(JSON.stringify(stored.messages)).not.toContain('summary_call');
    });

    it('answers with the summary’s text when it wrote one beside the call', async () => {
      const model = await modelWhoseSummaryCallsATool('上海今天多云。');
      const local = await servers.local(`strategy: plan-execute\nmaxRounds: 20\nmodel: { maxRetries: 0 }\n${demoServerYml()}`, model);

      const result = await postJson(`${local.server.url}/conversations/summary-text/messages`, { message: '上海天气怎么样？' });

      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ stopReason: 'completed', reply: '上海今天多云。', rounds: 5 });
      const stored = (await getJson(`${local.server.url}/conversations/summary-text`)).body.turns[0].messages;
      expect(historyViolations(stored)).toEqual([]);
      expect(stored.at(-1)).toEqual({ role: 'assistant', content: '上海今天多云。', toolCalls: [] });
    });
  });
});

/** A stored message as the wire carries it back to the model. */
function toWireShape(message: any): unknown {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, name: message.name, content: message.content };
  if (message.role === 'assistant') {
    return message.toolCalls.length > 0
      ? { role: 'assistant', content: message.content, tool_calls: message.toolCalls.map((call: any) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
      : { role: 'assistant', content: message.content };
  }
  return message;
}
