/**
 * A task is a turn: its id names the conversation and the turn, so any invocation can read it
 * back from the store (tasks/get, a resumed task) without a table of its own. A conversation id has
 * no `.` (lib/agent/turn/validate-input.ts), so the last one separates the two.
 */
export interface TaskKey {
  conversationId: string;
  turn: number;
}

export function taskIdOf(conversationId: string, turn: number): string {
  return `${conversationId}.${turn}`;
}

const TASK_ID = /^([A-Za-z0-9_-]{1,128})\.([1-9]\d{0,8})$/;

/** The turn a task id names; undefined for an id this door did not give out. */
export function readTaskId(id: string): TaskKey | undefined {
  const found = TASK_ID.exec(id);
  return found ? { conversationId: found[1]!, turn: Number(found[2]) } : undefined;
}
