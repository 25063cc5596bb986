import type { HistoryMessage } from '../../core/messages.ts';

/**
 * The texts of tool messages that report a failure or a call that did not run. Each says what
 * happened and what the model can do about it, because the model reads them and decides its next
 * step from them.
 */
export const toolText = {
  unknownTool: (name: string, available: readonly string[]) =>
    `Error: there is no tool named "${name}". Available tools: ${available.length > 0 ? available.join(', ') : '(none)'}. Call one of these by its exact name.`,
  invalidJson: (name: string, reason: string) =>
    `Error: the arguments for "${name}" are not valid JSON (${reason}). Send the arguments as one JSON object matching the tool's parameters.`,
  notAnObject: (name: string) =>
    `Error: the arguments for "${name}" must be a JSON object with the tool's parameters as keys.`,
  invalidArguments: (name: string, problems: string) =>
    `Error: invalid arguments for "${name}": ${problems}. Correct the arguments and call the tool again.`,
  timedOut: (name: string, timeoutMs: number) =>
    `Error: "${name}" did not answer within ${formatSeconds(timeoutMs)} and was cancelled. Try again with a smaller request, or continue without it.`,
  failed: (name: string, reason: string) =>
    `Error: calling "${name}" failed: ${withoutFullStop(reason)}. The tool may be unavailable; continue without it or try again later.`,
  toolError: (text: string) => `Error: ${text}`,
  notExecuted: (maxRounds: number) =>
    `Not executed: the turn reached its limit of ${maxRounds} model replies before this call could run.`,
  outOfTime: () => 'Not executed: the turn ran out of time before this call could run.',
  cancelledAtDeadline: (name: string) =>
    `Error: the turn ran out of time while "${name}" was running, so the call was cancelled; its effect is unknown.`,
  overRoundLimit: (count: number, limit: number) =>
    `Not executed: this reply asked for ${count} tool calls and at most ${limit} run per reply (tools.maxCallsPerRound). Make fewer calls at once; call this one again if it is still needed.`,
  overTurnLimit: (limit: number) =>
    `Not executed: this turn already made ${limit} tool calls, its limit (tools.maxCallsPerTurn). Answer with what you have, or say what is left to do.`,
  declined: (reason: string | undefined) =>
    `Not executed: the user declined this call${reason ? ` (reason: ${withoutFullStop(reason)})` : ''}. Do not repeat it unless the user asks; continue without it.`,
  declinedForNewMessage: () =>
    'Not executed: the user sent a new message instead of approving this call. Do not repeat it unless the user asks for it again.',
  approvalExpired: (ttlSeconds: number) =>
    `Not executed: nobody approved this call within ${formatSeconds(ttlSeconds * 1000)}, so it was declined. Do not repeat it unless the user asks for it again.`,
  questionUnanswered: (why: string) =>
    `Not completed: the tool asked the user a question and ${why}, so the tool was told the user cancelled; it may have done part of its work before it asked: check before repeating it.`,
  samplingNotApproved: (why: string) =>
    `Not completed: the tool asked to use the model (MCP sampling) and ${why}, so it was refused; the tool may have done part of its work before it asked: check before repeating it.`,
  samplingDeclined: (reason: string | undefined) =>
    `Not completed: the tool asked to use the model (MCP sampling) and the user declined${reason ? ` (reason: ${withoutFullStop(reason)})` : ''}; the tool may have done part of its work before it asked. Do not repeat it unless the user asks.`,
  outcomeUnknown: () =>
    'Unknown outcome: the service stopped while this call was running; its outcome is unknown: check before repeating it.',
  turnFailed: () => 'Not executed: the turn stopped with an error before this call could run.',
  forbiddenByPolicy: (name: string, reasons: readonly string[]) =>
    `Not executed: the tool policy does not allow this call of "${name}" for this user: ${reasons.map(withoutFullStop).join('; ')}. Do not repeat it with the same arguments; tell the user what was refused and why.`,
  notRecorded: () =>
    'Not executed: the service could not record this call before running it, so it did not run.',
} as const;

/**
 * A result as the turn can still carry it: whole while the turn's tool output stays within
 * `limit` (tools.maxTurnOutputChars), else cut to the `left` characters, with a note the model can
 * act on; nothing of it once the turn has none left.
 */
export function withinTurnOutput(text: string, left: number, limit: number): string {
  if (text.length <= left) return text;
  const next = 'Answer with what you have, or tell the user what is missing so they can ask for it in a new message.';
  if (left <= 0) {
    return `Not shown: this turn's tool results already reached their limit of ${limit} characters (tools.maxTurnOutputChars), so this result (${text.length} characters) is left out. ${next}`;
  }
  return `${text.slice(0, left)}\n…[cut: this turn's tool results reached their limit of ${limit} characters (tools.maxTurnOutputChars); ${text.length - left} of this result's ${text.length} characters are left out. ${next}]`;
}

/** The tool output a turn's messages carry: its tool messages since its question (a stateless caller's earlier ones not counted). */
export function turnOutputChars(messages: readonly HistoryMessage[]): number {
  let chars = 0;
  for (let at = messages.length - 1; at >= 0 && messages[at]!.role !== 'user'; at -= 1) {
    const message = messages[at]!;
    if (message.role === 'tool') chars += message.content.length;
  }
  return chars;
}

export function truncateOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n…[truncated: the tool returned ${text.length} characters, ${maxChars} are shown]`;
}

const withoutFullStop = (text: string) => text.trim().replace(/[.。]+$/, '');

/** A duration as the model reads it: `800 ms`, `12.5 s`, `2 hours`, `1 day`. */
export const formatSeconds = (milliseconds: number) => {
  if (milliseconds < 1000) return `${milliseconds} ms`;
  const seconds = Math.round(milliseconds / 100) / 10;
  if (seconds < 3600 || seconds % 3600 !== 0) return `${seconds} s`;
  const hours = seconds / 3600;
  return hours % 24 === 0 ? `${hours / 24} day${hours === 24 ? '' : 's'}` : `${hours} hours`;
};
