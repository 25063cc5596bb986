/**
 * The texts of tool messages that report a failure. Each says what happened and what the model can
 * do about it, because the model reads them and decides its next step from them.
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
    `Error: calling "${name}" failed: ${reason}. The tool may be unavailable; continue without it or try again later.`,
  toolError: (text: string) => `Error: ${text}`,
  notExecuted: (maxRounds: number) =>
    `Not executed: the turn reached its limit of ${maxRounds} model replies before this call could run.`,
  outOfTime: () => 'Not executed: the turn ran out of time before this call could run.',
  cancelledAtDeadline: (name: string) =>
    `Error: the turn ran out of time while "${name}" was running, so the call was cancelled; its effect is unknown.`,
} as const;

export function truncateOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n…[truncated: the tool returned ${text.length} characters, ${maxChars} are shown]`;
}

const formatSeconds = (milliseconds: number) =>
  milliseconds >= 1000 ? `${Math.round(milliseconds / 100) / 10} s` : `${milliseconds} ms`;
