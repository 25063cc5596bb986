import type { JsonObject } from '../../core/json.ts';
import type { ToolDefinition } from '../../core/ports/tools.ts';

/**
 * The plan of a plan-execute turn, and the built-in `planning` tool the planner writes it with:
 *
 *   create     the tasks (at most planner.maxTasks), each maybe independent of the ones before it
 *   update     replaces the tasks not started yet (the done ones stay)
 *   mark_task  a task's status and notes
 */

type TaskStatus = 'not_started' | 'in_progress' | 'completed' | 'blocked';

export interface PlanTask {
  id: number;
  title: string;
  details?: string;
  /** Runs beside the tasks around it that are independent too (planner.parallelTasks at once). */
  independent: boolean;
  status: TaskStatus;
  notes?: string;
  /** What its executor answered when it finished. */
  result?: string;
}

export interface Plan {
  tasks: PlanTask[];
}

export const PLANNING_TOOL = 'planning';

export function planningTool(maxTasks: number): ToolDefinition {
  return {
    name: PLANNING_TOOL,
    description: `Write or revise the plan. "create" the tasks (at most ${maxTasks}), in the order they must run; mark a task "independent" when it needs nothing from the tasks before it, so it can run beside them. "update" replaces the tasks not started yet. "mark_task" sets one task's status and notes.`,
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['create', 'update', 'mark_task'] },
        tasks: {
          type: 'array',
          description: 'For create and update.',
          items: {
            type: 'object',
            properties: {
              title: { type: 'string', minLength: 1, description: 'What to do, as an instruction.' },
              details: { type: 'string', description: 'What the task needs to know.' },
              independent: { type: 'boolean', description: 'Needs nothing from the tasks before it.' },
            },
            required: ['title'],
          },
        },
        taskId: { type: 'integer', description: 'For mark_task.' },
        status: { type: 'string', enum: ['not_started', 'in_progress', 'completed', 'blocked'], description: 'For mark_task.' },
        notes: { type: 'string', description: 'For mark_task.' },
      },
      required: ['action'],
    },
    annotations: { readOnlyHint: true },
  };
}

type PlanningOutcome = { ok: true; plan: Plan; text: string } | { ok: false; text: string };

/** One planning call applied to the plan so far; a call that cannot apply says why, for the planner. */
export function applyPlanning(plan: Plan | undefined, args: JsonObject, maxTasks: number): PlanningOutcome {
  const tasks = Array.isArray(args.tasks) ? (args.tasks as Array<{ title: string; details?: string; independent?: boolean }>) : [];
  const fresh = (from: number) => tasks.map((task, index) => ({ id: from + index, title: task.title, ...(task.details ? { details: task.details } : {}), independent: task.independent === true, status: 'not_started' as const }));
  switch (args.action) {
    case 'create': {
      if (plan) return { ok: false, text: 'A plan exists already: use "update" to change the tasks not started yet.' };
      if (tasks.length === 0 || tasks.length > maxTasks) return { ok: false, text: `Give between 1 and ${maxTasks} tasks.` };
      const created = { tasks: fresh(1) };
      return { ok: true, plan: created, text: `Plan created:\n${renderPlan(created)}` };
    }
    case 'update': {
      if (!plan) return { ok: false, text: 'There is no plan yet: use "create".' };
      const kept = plan.tasks.filter((task) => task.status !== 'not_started');
      if (kept.length + tasks.length > maxTasks) return { ok: false, text: `A plan has at most ${maxTasks} tasks; ${kept.length} are started or done.` };
      const updated = { tasks: [...kept, ...fresh(Math.max(0, ...plan.tasks.map((task) => task.id)) + 1)] };
      return { ok: true, plan: updated, text: `Plan updated:\n${renderPlan(updated)}` };
    }
    case 'mark_task': {
      const task = plan?.tasks.find((candidate) => candidate.id === args.taskId);
      if (!plan || !task) return { ok: false, text: `There is no task ${String(args.taskId)}.` };
      if (typeof args.status !== 'string') return { ok: false, text: 'Give the task\'s new "status".' };
      const marked = { tasks: plan.tasks.map((candidate) => (candidate === task ? { ...candidate, status: args.status as TaskStatus, ...(typeof args.notes === 'string' ? { notes: args.notes } : {}) } : candidate)) };
      return { ok: true, plan: marked, text: `Task ${task.id} is ${String(args.status)}.` };
    }
    default:
      return { ok: false, text: 'The action must be "create", "update" or "mark_task".' };
  }
}

/**
 * The tasks to run next: the first task not started, and when it is independent, the independent
 * tasks that follow it, up to `parallel` in all.
 */
export function nextTasks(plan: Plan, parallel: number): PlanTask[] {
  const waiting = plan.tasks.filter((task) => task.status === 'not_started');
  const [first] = waiting;
  if (!first) return [];
  if (!first.independent || parallel <= 1) return [first];
  const batch = [first];
  for (const task of waiting.slice(1)) {
    if (!task.independent || batch.length >= parallel) break;
    batch.push(task);
  }
  return batch;
}

export function renderPlan(plan: Plan): string {
  return plan.tasks
    .map((task) => `${task.id}. [${task.status}] ${task.title}${task.details ? ` (${task.details})` : ''}${task.independent ? ' [independent]' : ''}${task.notes ? ` — ${task.notes}` : ''}`)
    .join('\n');
}

/** Each task with its result, for the tasks after it and for the summary. */
export function renderResults(plan: Plan): string {
  const done = plan.tasks.filter((task) => task.result !== undefined);
  return done.length === 0 ? '(no task has finished yet)' : done.map((task) => `Task ${task.id} (${task.title}) [${task.status}]:\n${task.result}`).join('\n\n');
}
