import { CLIENT_CAPABILITIES_META_KEY, fromJsonSchema, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { Agent } from '../../agent/agent-api.ts';
import { readResponseFormat } from '../../agent/turn/read-response-format.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import type { Logger } from '../../core/logger.ts';
import type { TurnResult } from '../../core/turn.ts';
import { errorResponse } from '../../http/errors.ts';
import type { CallerToken } from '../../core/caller-token.ts';
import type { TraceContext } from '../../core/trace-context.ts';
import { askTheClient, decisionsFrom, isPaused, readPausedTurnState, waitingText } from './paused-turn.ts';
import { progressReporter } from './progress.ts';
import type { McpServerDoorSettings } from './settings.ts';
import { askInputSchema, TURN_RESULT_SCHEMA } from './tool-schemas.ts';

/** Who asks, taken from the HTTP request the auth layer identified: the same owner and deadline as the native API's. */
export interface Caller {
  owner?: string;
  deadlineAt?: number;
  trace?: TraceContext;
  /** The bearer the caller presented, for MCP servers that act on its behalf (memory only). */
  callerToken?: CallerToken;
}

interface AskArguments {
  message: string;
  conversationId?: string;
  responseFormat?: unknown;
}

/**
 * The agent as one MCP tool: ask({message, conversationId?, responseFormat?}) runs a turn (agent.ask, so the same
 * owners, budgets and approvals as every door) and answers with the reply as text and the turn
 * result as structuredContent. A retried call that carries the answers to a paused turn's questions
 * decides them (agent.decide) and lets the turn go on.
 */
export function registerAskTool(server: McpServer, services: { agent: Agent; logger: Logger }, caller: Caller, settings: McpServerDoorSettings): void {
  const { agent, logger } = services;
  server.registerTool(
    settings.toolName,
    {
      description: settings.toolDescription,
      inputSchema: fromJsonSchema<AskArguments>(askInputSchema(settings) as never),
      outputSchema: fromJsonSchema<Record<string, unknown>>(TURN_RESULT_SCHEMA as never),
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (input, context) => {
      const onEvent = progressOf(context);
      const owned = { ...(caller.owner ? { owner: caller.owner } : {}), ...(caller.deadlineAt === undefined ? {} : { deadlineAt: caller.deadlineAt }), ...(caller.trace ? { trace: caller.trace } : {}), ...(caller.callerToken ? { callerToken: caller.callerToken } : {}), ...(onEvent ? { onEvent } : {}) };
      const paused = readPausedTurnState(context.mcpReq.requestState());
      let result: TurnResult;
      try {
        result = paused
          ? await agent.decide({ ...owned, conversationId: paused.conversationId, decisions: decisionsFrom(paused, context.mcpReq.inputResponses) })
          : await agent.ask({ ...owned, message: input.message, ...(input.conversationId === undefined ? {} : { conversationId: input.conversationId }), ...(input.responseFormat === undefined ? {} : { responseFormat: readResponseFormat(input.responseFormat) }) });
      } catch (error) {
        return refusal(error, logger);
      }
      if (isPaused(result) && canElicit(context, result)) return askTheClient(result);
      return toolResult(result);
    },
  );
}

/**
 * A turn that could not run (an unknown conversation, another owner's, a spent budget, a model or
 * store that is down) as a tool error the calling model can read: the message and code the native
 * API would answer with (lib/http/errors.ts, which also logs what needs logging).
 */
function refusal(error: unknown, logger: Logger) {
  const { error: body } = JSON.parse(errorResponse(error, logger).body) as { error: { code: string; message: string } };
  return { content: [{ type: 'text' as const, text: `${body.message} (${body.code})` }], isError: true };
}

function toolResult(result: TurnResult) {
  const text = isPaused(result) ? [result.reply, waitingText(result)].filter((part) => part !== '').join('\n\n') : result.reply;
  return {
    content: [{ type: 'text' as const, text }],
    structuredContent: JSON.parse(JSON.stringify(result)) as Record<string, unknown>,
    ...(result.stopReason === 'error' ? { isError: true } : {}),
  };
}

/** Progress notifications, only for a request that asked for them with a progressToken. */
function progressOf(context: ServerContext): ((event: LoopEvent) => void) | undefined {
  const token = context.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  return progressReporter(token, (notification) => context.mcpReq.notify(notification));
}

/**
 * Only a client on the 2026-07-28 revision that declared elicitation on the request can be asked:
 * a 2025 client served statelessly can receive no request from the server (its answer would reach
 * another instance), so it gets the result that says what waits. A page to open needs a client
 * that declared URL mode (`elicitation.url`; `{}` or `{form}` alone means forms only, MCP
 * 2025-11-25): a form-only client gets the result too, which names the URL.
 */
function canElicit(context: ServerContext, result: TurnResult): boolean {
  const envelope = context.mcpReq.envelope as Record<string, { elicitation?: { url?: unknown } } | undefined> | undefined;
  const elicitation = envelope?.[CLIENT_CAPABILITIES_META_KEY]?.elicitation;
  if (elicitation === undefined) return false;
  const asksForPage = (result.pendingElicitations ?? []).some((question) => question.mode === 'url');
  return !asksForPage || elicitation.url !== undefined;
}
