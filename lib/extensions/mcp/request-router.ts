/**
 * Routes what an MCP server asks the client while a call runs (elicitation, sampling) to the turn
 * and call that caused it. The gateway is one per process, shared by every turn, and a server's
 * request does not say which of its calls it belongs to (over stdio nothing ties the two). So the
 * calls to a server that may ask (elicitation `ask`, sampling on) run one at a time per process:
 * while one runs, it is the one that asked, and its answers never reach another conversation.
 *
 *   turn A: call ─exclusive(server)─► runs ─► server asks ─► onElicitation ─► A's call answers
 *   turn B: call ─exclusive(server)─► waits (within its own timeout) ─► runs after A's call
 */
import type { Logger } from '../../core/logger.ts';
import type { ElicitationRequest, ElicitationResult, SamplingRequest, SamplingResult, ServerRequestContext } from '../../core/ports/tools.ts';

/** Answers one call's server requests while it runs. */
export interface CallAnswers {
  conversationId: string;
  owner: string | undefined;
  elicit(request: ElicitationRequest): Promise<ElicitationResult>;
  sample(request: SamplingRequest, signal: AbortSignal): Promise<SamplingResult>;
}

export interface ServerRequestRouter {
  /** For createMcpGateway's onElicitation: the request goes to the call running on its server. */
  onElicitation(request: ElicitationRequest, context: ServerRequestContext): Promise<ElicitationResult>;
  /** For createMcpGateway's onSampling. */
  onSampling(request: SamplingRequest, context: ServerRequestContext): Promise<SamplingResult>;
  /**
   * Runs `work` (one call) as the only call on `server` in this process, its server's requests
   * answered by `answers` meanwhile. Waits for the call before it; `signal` ends the wait.
   */
  exclusive<T>(server: string, answers: CallAnswers, work: () => Promise<T>, signal: AbortSignal): Promise<T>;
}

export function createServerRequestRouter(logger: Logger): ServerRequestRouter {
  const running = new Map<string, CallAnswers>();
  const queues = new Map<string, Promise<void>>();

  /** The call running on the server, unless the gateway saw a call of someone else in flight there too. */
  function answering(context: ServerRequestContext): CallAnswers | undefined {
    const answers = running.get(context.server);
    if (!answers) return undefined;
    const stranger = context.toolCalls.some(
      (call) => call.caller !== undefined && (call.caller.conversationId !== answers.conversationId || call.caller.owner !== answers.owner),
    );
    return stranger ? undefined : answers;
  }

  return {
    async onElicitation(request, context) {
      const answers = answering(context);
      if (answers) return answers.elicit(request);
      logger.warn('mcp elicitation declined: no call of a turn is running on the server', { server: context.server });
      return { action: 'decline' };
    },

    async onSampling(request, context) {
      const answers = answering(context);
      if (answers) return answers.sample(request, context.signal);
      logger.warn('mcp sampling refused: no call of a turn is running on the server', { server: context.server });
      throw new Error('no tool call of this client is running on the server, so there is no model to answer for');
    },

    async exclusive(server, answers, work, signal) {
      const before = queues.get(server) ?? Promise.resolve();
      let release!: () => void;
      const own = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tail = before.then(() => own);
      queues.set(server, tail);
      try {
        await untilAborted(before, signal);
        running.set(server, answers);
        try {
          return await work();
        } finally {
          running.delete(server);
        }
      } finally {
        release();
        if (queues.get(server) === tail) queues.delete(server);
      }
    },
  };
}

/** The promise, or the signal's reason as soon as it aborts. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', abort);
        resolve();
      },
      () => {
        signal.removeEventListener('abort', abort);
        resolve();
      },
    );
  });
}
