/**
 * A tool call failed with -32042 "URL elicitation required" (MCP 2025-11-25; AgentCore Gateway
 * answers so when the user must first consent on a page): the error's data lists the URL-mode
 * elicitations. Each is handed to the same answer as a server's own elicitation/create, so the
 * policy decides as it does there: under `ask` the call's session remembers it and the turn
 * pauses; the call then runs again from the start once the user answers, which is the retry the
 * spec asks for. What this returns is the model's answer only when the call does not wait: the
 * user declined or cancelled, the policy declines, or the server still refuses after an accept.
 */
import type { ElicitRequestURLParams, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutput } from '../../core/ports/tools.ts';
import type { ServerRequestAnswers } from './server-requests.ts';

export async function answerUrlElicitationRequired(error: McpError, answers: ServerRequestAnswers, toolName: string, signal: AbortSignal): Promise<ToolOutput> {
  const elicitations = urlElicitationsOf(error.data);
  const pages = elicitations.map((elicitation) => `${elicitation.url} (${elicitation.message})`).join(', ') || 'a page';
  if (!answers.elicit || elicitations.length === 0) {
    return { ok: false, text: `Tool "${toolName}" needs the user to open ${pages} first; this service does not ask users to open pages for this server (its elicitation policy declines).` };
  }
  for (const elicitation of elicitations) {
    const answer = await answers.elicit(elicitation, signal);
    if (answer.action !== 'accept') {
      return { ok: false, text: `Tool "${toolName}" needs the user to open ${elicitation.url} (${elicitation.message}); the user ${answer.action === 'decline' ? 'declined' : 'cancelled'}.` };
    }
  }
  return { ok: false, text: `Tool "${toolName}" still needs the user to open ${pages}, although the user said they had: ${error.message}` };
}

function urlElicitationsOf(data: unknown): ElicitRequestURLParams[] {
  const listed = (data as { elicitations?: unknown } | undefined)?.elicitations;
  if (!Array.isArray(listed)) return [];
  return listed.filter((item): item is ElicitRequestURLParams => {
    const candidate = item as Partial<ElicitRequestURLParams> | null;
    return typeof candidate?.url === 'string' && typeof candidate.elicitationId === 'string' && typeof candidate.message === 'string';
  }).map((item) => ({ ...item, mode: 'url' as const }));
}
