import { describe, expect, it } from 'vitest';
import { applyPlanning, nextTasks, planningTool, type Plan } from '../../lib/strategies/plan-execute/plan.ts';
import { parseConfig } from '../../lib/config/load.ts';

const task = (title: string, independent = false) => ({ title, independent });
const created = (tasks: Array<{ title: string; independent?: boolean }>, maxTasks = 5): Plan => {
  const outcome = applyPlanning(undefined, { action: 'create', tasks }, maxTasks);
  if (!outcome.ok) throw new Error(outcome.text);
  return outcome.plan;
};

describe('the planning tool of plan-execute', () => {
  it('defaults to at most 5 tasks, 3 side by side', () => {
    const config = parseConfig('strategy: plan-execute', { source: 'test.yml', environment: {} });
    expect(config.planner).toMatchObject({ maxTasks: 5, parallelTasks: 3 });
    expect(planningTool(5).parameters).toMatchObject({
      properties: { action: { enum: ['create', 'update', 'mark_task'] }, status: { enum: ['not_started', 'in_progress', 'completed', 'blocked'] }, notes: { type: 'string' } },
    });
  });

  it('creates between 1 and planner.maxTasks tasks, not started, numbered from 1, once', () => {
    const plan = created([task('查上海天气', true), task('查北京天气', true), task('总结')]);
    expect(plan.tasks).toEqual([
      { id: 1, title: '查上海天气', independent: true, status: 'not_started' },
      { id: 2, title: '查北京天气', independent: true, status: 'not_started' },
      { id: 3, title: '总结', independent: false, status: 'not_started' },
    ]);
    expect(applyPlanning(undefined, { action: 'create', tasks: Array.from({ length: 6 }, (_, index) => task(`t${index}`)) }, 5)).toEqual({ ok: false, text: 'Give between 1 and 5 tasks.' });
    expect(applyPlanning(undefined, { action: 'create', tasks: [] }, 5).ok).toBe(false);
    expect(applyPlanning(plan, { action: 'create', tasks: [task('again')] }, 5)).toMatchObject({ ok: false, text: expect.stringMatching(/use "update"/) });
  });

  it('updates only the tasks not started, within planner.maxTasks in all', () => {
    const plan = created([task('one'), task('two'), task('three')]);
    plan.tasks[0]!.status = 'completed';
    plan.tasks[0]!.result = 'done';
    const updated = applyPlanning(plan, { action: 'update', tasks: [task('two, better'), task('four')] }, 5);
    expect(updated.ok && updated.plan.tasks.map((entry) => [entry.id, entry.title, entry.status])).toEqual([[1, 'one', 'completed'], [4, 'two, better', 'not_started'], [5, 'four', 'not_started']]);
    expect(applyPlanning(plan, { action: 'update', tasks: Array.from({ length: 5 }, (_, index) => task(`t${index}`)) }, 5)).toEqual({ ok: false, text: 'A plan has at most 5 tasks; 1 are started or done.' });
    expect(applyPlanning(undefined, { action: 'update', tasks: [task('x')] }, 5)).toMatchObject({ ok: false, text: expect.stringMatching(/use "create"/) });
  });

  it('marks a task with a status and notes; a task marked blocked or completed is not run', () => {
    const plan = created([task('one', true), task('two', true), task('three', true)]);
    const marked = applyPlanning(plan, { action: 'mark_task', taskId: 1, status: 'blocked', notes: 'no access to the order system' }, 5);
    expect(marked).toMatchObject({ ok: true, text: 'Task 1 is blocked.' });
    const next = marked.ok ? marked.plan : plan;
    expect(next.tasks[0]).toMatchObject({ status: 'blocked', notes: 'no access to the order system' });
    expect(nextTasks(next, 3).map((entry) => entry.id)).toEqual([2, 3]);
    expect(applyPlanning(next, { action: 'mark_task', taskId: 9, status: 'completed' }, 5)).toEqual({ ok: false, text: 'There is no task 9.' });
    expect(applyPlanning(next, { action: 'mark_task', taskId: 2 }, 5)).toMatchObject({ ok: false });
    expect(applyPlanning(next, { action: 'delete' }, 5)).toMatchObject({ ok: false, text: expect.stringMatching(/"create", "update" or "mark_task"/) });
  });

  it('runs independent tasks together up to parallelTasks, and a dependent one alone', () => {
    const plan = created([task('a', true), task('b', true), task('c', true), task('d', true), task('e')]);
    expect(nextTasks(plan, 3).map((entry) => entry.id)).toEqual([1, 2, 3]);
    expect(nextTasks(plan, 1).map((entry) => entry.id)).toEqual([1]);
    for (const entry of plan.tasks.slice(0, 3)) entry.status = 'completed';
    expect(nextTasks(plan, 3).map((entry) => entry.id)).toEqual([4]);
  });
});
