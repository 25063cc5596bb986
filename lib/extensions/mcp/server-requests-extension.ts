/**
 * The agent's side of what MCP servers ask while a call runs (elicitation under `ask`, sampling):
 * every call to such a server runs alone on it in this process (request-router.ts), with a
 * CallSession answering its requests. When the session met a request only a person can answer,
 * the call is left waiting (AwaitingInput) and the turn pauses; the person's answers so far are
 * kept in the conversation's state under this extension's name, so the call's next run, in any
 * process, has them.
 */
import type { JsonObject } from '../../core/json.ts';
import { AwaitingInput, type CallInput } from '../../agent/loop/call-input.ts';
import type { AgentExtension, TurnContext } from '../../agent/extension-api/extension.ts';
import { CallSession } from './call-session.ts';
import type { ServerRequestRouter } from './request-router.ts';

export interface AskingServer {
  /** `sampling: ask`: each sampling request is approved by a person first. */
  samplingNeedsApproval: boolean;
}

interface ServerRequestsOptions {
  router: ServerRequestRouter;
  /** The servers that may ask (elicitation `ask`, sampling on), by name. */
  servers: ReadonlyMap<string, AskingServer>;
  modelTimeoutMs: number;
  modelName: string;
}

const SERVER_REQUESTS_EXTENSION = 'mcpServerRequests';

/** What is kept in the conversation: the answers given so far to the calls of one (paused) turn. */
interface KeptAnswers {
  turn: number;
  calls: Record<string, CallInput[]>;
}

export function serverRequestsExtension(options: ServerRequestsOptions): AgentExtension {
  return {
    name: SERVER_REQUESTS_EXTENSION,
    async aroundToolCall(call, next, turn) {
      const server = call.server === undefined ? undefined : options.servers.get(call.server);
      if (call.server === undefined || !server) return next();
      const answers = [...(keptAnswers(turn).calls[call.id] ?? []), ...(call.input ? [call.input] : [])];
      const session = new CallSession({
        server: call.server,
        call,
        turn,
        answers,
        samplingNeedsApproval: server.samplingNeedsApproval,
        modelTimeoutMs: options.modelTimeoutMs,
        modelName: options.modelName,
      });
      try {
        const output = await options.router.exclusive(call.server, session, next, call.signal);
        if (!session.awaited) return output;
      } catch (error) {
        if (!session.awaited) throw error;
      } finally {
        // The answers this run used are kept only while the call waits (read again here: calls of
        // one round run side by side and each keeps its own).
        const kept = keptAnswers(turn);
        if (session.awaited) kept.calls[call.id] = answers;
        else delete kept.calls[call.id];
        turn.state = Object.keys(kept.calls).length > 0 ? (kept as unknown as JsonObject) : {};
      }
      // What the run returned after being told "cancel" is not the call's answer: it runs again.
      throw new AwaitingInput(session.awaited!);
    },
  };
}

/** Answers kept for this turn's calls; those of an earlier turn are gone with it. */
function keptAnswers(turn: TurnContext): KeptAnswers {
  const state = turn.state as Partial<KeptAnswers>;
  return state.turn === turn.turn && state.calls ? (state as KeptAnswers) : { turn: turn.turn, calls: {} };
}
