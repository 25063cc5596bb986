import type { LoopEvent } from '../../agent/loop/loop-events.ts';

/** A `notifications/progress` for the request that carried the token. */
export interface ProgressNotification {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; message: string };
}

/**
 * The turn's progress as MCP progress notifications: one per model round and one per tool call
 * and its result, each with a progress count that only grows (as MCP requires) and a message a
 * person can read. No total: a turn does not know how many rounds it will take.
 */
export function progressReporter(progressToken: string | number, notify: (notification: ProgressNotification) => Promise<void>): (event: LoopEvent) => void {
  let progress = 0;
  return (event) => {
    const message = progressMessage(event);
    if (message === undefined) return;
    progress += 1;
    // A client that went away must not fail the turn: the notification is best effort.
    notify({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => undefined);
  };
}

function progressMessage(event: LoopEvent): string | undefined {
  switch (event.type) {
    case 'round-start':
      return `round ${event.round}: asking the model`;
    case 'tool-call':
      return `round ${event.round}: calling ${event.call.name}`;
    case 'tool-result':
      return `round ${event.round}: ${event.result.name} ${event.result.ok ? 'answered' : 'failed'}`;
    case 'approval-required':
      return `round ${event.round}: ${event.pendingApprovals.map((call) => call.name).join(', ')} waits for approval`;
    case 'elicitation-required':
      return `round ${event.round}: a tool asks a question`;
    default:
      return undefined;
  }
}
