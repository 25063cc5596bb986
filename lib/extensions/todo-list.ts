import type { JsonObject } from '../core/json.ts';
import type { AgentExtension } from '../agent/extension-api/extension.ts';

/**
 * The todo list (agent.yml `todoList: true`), after LangChain's TodoListMiddleware: a built-in
 * `write_todos` tool that takes the whole list, a section of the system prompt saying when to keep
 * one, and the list itself sent back to the model every round. The list is kept with the
 * conversation, returned in the turn result (`todos`) and by GET /conversations/{id}, and streamed as
 * a `todos` event whenever it changes.
 */

type TodoStatus = 'pending' | 'in_progress' | 'completed';

interface TodoItem {
  content: string;
  status: TodoStatus;
}

const TOOL_NAME = 'write_todos';

const DESCRIPTION = `Write your todo list for the current task: send the whole list each time (it replaces the previous one).
Use it for complex tasks of three or more distinct steps, or when the user gives you several things to do; skip it for simple tasks you can finish in a few steps, and for plain questions.
Rules: keep exactly one item "in_progress" while you work (at least one until every item is "completed"); mark an item "completed" only when it is fully done (not when it failed or is partly done: keep it in progress, or add an item for what is left); remove items that no longer matter. Never call this tool more than once in one reply.`;

export const TODO_PROMPT = `## Todo list
You have a \`${TOOL_NAME}\` tool to plan and track multi-step work. Use it for tasks of three or more steps: write the list before you start, mark the first item "in_progress", and update the list as you finish each item (mark it "completed" at once, then the next "in_progress"). Do not use it for simple requests or questions you can answer in a few steps. Call it at most once per reply.`;

const PARAMETERS = {
  type: 'object',
  properties: {
    todos: {
      type: 'array',
      description: 'The whole todo list, in order.',
      items: {
        type: 'object',
        properties: {
          content: { type: 'string', minLength: 1, description: 'What to do, in a few words.' },
          status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
        },
        required: ['content', 'status'],
        additionalProperties: false,
      },
    },
  },
  required: ['todos'],
  additionalProperties: false,
};

export function todoListExtension(): AgentExtension {
  return {
    name: 'todoList',
    tools: [
      {
        definition: { name: TOOL_NAME, description: DESCRIPTION, parameters: PARAMETERS, annotations: { readOnlyHint: true } },
        run(args, call, turn) {
          // The write_todos calls of the reply under way: only the first is applied.
          const callsThisReply = (turn.scratch.callsThisReply as string[] | undefined) ?? [];
          if (callsThisReply.indexOf(call.id) > 0) {
            return { ok: false, text: `${TOOL_NAME} was called more than once in one reply; only the first call was applied. Send the whole list in one call.` };
          }
          const todos = (args.todos as TodoItem[]).map(({ content, status }) => ({ content: content.trim(), status }));
          const changed = JSON.stringify(todos) !== JSON.stringify(todosOf(turn.state));
          turn.state = { todos } as unknown as JsonObject;
          if (changed) turn.emit('todos', { todos });
          const open = todos.filter((todo) => todo.status !== 'completed');
          const hint = open.length > 0 && !open.some((todo) => todo.status === 'in_progress') ? ' Mark the item you work on next "in_progress".' : '';
          return { ok: true, text: `Todo list updated: ${todos.length - open.length} of ${todos.length} completed.${hint}` };
        },
      },
    ],
    afterModelReply(reply, turn) {
      turn.scratch.callsThisReply = reply.toolCalls.filter((call) => call.name === TOOL_NAME).map((call) => call.id);
    },
    beforeModelCall(request, turn) {
      const todos = todosOf(turn.state);
      const current = todos.length === 0 ? 'Your todo list is empty.' : `Your current todo list:\n${todos.map((todo) => `- [${todo.status}] ${todo.content}`).join('\n')}`;
      return { ...request, systemPrompt: `${request.systemPrompt}\n\n${TODO_PROMPT}\n\n${current}` };
    },
    turnEnd: (_result, turn) => ({ todos: todosOf(turn.state) }),
    view: (state) => ({ todos: todosOf(state) }),
  };
}

function todosOf(state: JsonObject): TodoItem[] {
  return Array.isArray(state.todos) ? (state.todos as TodoItem[]) : [];
}
