/**
 * What the strategies keep for the conversation: the todo list (todoList: true, `todos` events) and
 * the plan (strategy: plan-execute: `plan`, `task-start`, `task-end`), shown above the question box
 * and kept up to date as the events arrive.
 */
import { h } from './dom.js';

const MARKS = { pending: '○', not_started: '○', in_progress: '◐', completed: '●', blocked: '✕' };

export class ProgressPanel {
  constructor(element) {
    this.element = element;
    this.todos = [];
    this.plan = null;
  }

  reset({ todos = [], plan = null } = {}) {
    this.todos = todos;
    this.plan = plan;
    this.render();
  }

  handle({ event, data }) {
    if (event === 'todos') this.todos = data.todos ?? [];
    else if (event === 'plan') this.plan = data.plan ?? null;
    else if (event === 'task-start' || event === 'task-end') {
      const task = this.plan?.tasks?.find((candidate) => candidate.id === data.taskId);
      if (!task) return;
      task.status = event === 'task-start' ? 'in_progress' : data.status;
    } else return;
    this.render();
  }

  render() {
    const sections = [];
    if (this.todos.length > 0) sections.push(h('section', { class: 'todos' }, h('h3', {}, 'Todo list'), list(this.todos.map((todo) => [todo.status, todo.content]))));
    if (this.plan?.tasks?.length) sections.push(h('section', { class: 'plan' }, h('h3', {}, 'Plan'), list(this.plan.tasks.map((task) => [task.status, `${task.id}. ${task.title}`]))));
    this.element.replaceChildren(...sections);
    this.element.hidden = sections.length === 0;
  }
}

function list(items) {
  return h('ul', {}, items.map(([status, text]) => h('li', { class: status, title: status.replace('_', ' ') }, h('span', { class: 'mark' }, MARKS[status] ?? '○'), ` ${text}`)));
}
