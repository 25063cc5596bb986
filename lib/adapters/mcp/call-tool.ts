/** One tools/call with the caller's signal and timeout; SDK failures wrapped once, here. */
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../core/json.ts';
import type { ToolCallOptions, ToolOutput } from '../../core/ports/tools.ts';
import { RESULT_TOO_LARGE, type ResultTooLargeData } from './bounded/oversize.ts';
import type { ServerConnection } from './connect.ts';
import { imagesOf, renderToolResult } from './content.ts';
import { isSessionExpired } from '#mcp-remote';
import { callStatelessTool } from './stateless/input-required.ts';
import { ToolCallError } from './errors.ts';
import { answerUrlElicitationRequired } from './url-elicitation-required.ts';
import { McpOAuthError } from './oauth/errors.ts';
import { currentTraceContext } from '../../core/trace-context.ts';
import { followSignal } from '../../core/deadline.ts';

interface CallTarget {
  /** The name the model used, for messages the model reads. */
  name: string;
  server: string;
  originalName: string;
  /** Runs only as an MCP task (execution.taskSupport: "required"). */
  requiresTask?: boolean;
}

/**
 * The `_meta` keys that tell a server whom a call is made for (MCP reserves reverse-DNS prefixes
 * for this; the bare names are the spec's own). Identity, never credentials: servers are called
 * with the service's own (the headers and env of agent.yml), whoever the caller is.
 */
export const CALLER_META_KEYS = {
  owner: 'io.github.mcp-agent/owner',
  conversationId: 'io.github.mcp-agent/conversationId',
} as const;

export async function callServerTool(
  connection: ServerConnection,
  target: CallTarget,
  args: JsonObject,
  options: ToolCallOptions,
): Promise<ToolOutput> {
  if (options.signal.aborted) throw aborted(target, options.signal.reason, options.signal.reason);
  // The SDK keeps its abort listener on the signal after the request: it is given the call's own
  // (ToolCallOptions.signal), which nothing aborts once the call is over. A task's requests follow
  // it through a controller that the task's own timer aborts too (callAsTask). Every other call
  // makes one controller and one listener fewer than when the gateway made its own for each.
  const task = target.requiresTask ? followSignal(options.signal) : undefined;
  const signal = task?.signal ?? options.signal;
  try {
    const params = { name: target.originalName, arguments: args, ...callerMeta(options.caller) };
    const requestOptions = { signal, timeout: options.timeoutMs, ...progressOptions(options) };
    const result = task
      ? await callAsTask(connection, params, task.controller, options.timeoutMs)
      : connection.era === 'stateless'
        ? await callStatelessTool(connection, params, requestOptions)
        : await connection.client.callTool(params, undefined, requestOptions);
    // Servers of protocol 2024-10-07 and older answer { toolResult } instead of content blocks.
    if (!('content' in result) && 'toolResult' in result) return { ok: true, text: JSON.stringify(result.toolResult) };
    const images = imagesOf(result as CallToolResult);
    return { ok: result.isError !== true, text: renderToolResult(result as CallToolResult), ...(images.length > 0 ? { images } : {}) };
  } catch (error) {
    if (signal.aborted) throw aborted(target, error, signal.reason);
    // The server forgot the session: the caller renews it and sends the call again (managed-server.ts).
    if (isSessionExpired(error)) throw error;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      throw new ToolCallError('tool_timeout', `Tool "${target.name}" did not answer within ${options.timeoutMs} ms.`, {
        cause: error,
      });
    }
    if (error instanceof McpError && error.code === RESULT_TOO_LARGE) return { ok: false, text: tooLargeText(target, error) };
    if (error instanceof McpError && error.code === ErrorCode.UrlElicitationRequired) return answerUrlElicitationRequired(error, connection.answers, target.name, options.signal);
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
      // The server answered with a JSON-RPC error (or its result broke the tool's outputSchema):
      // that is the tool's own failure, which the model can read and act on.
      return { ok: false, text: error.message };
    }
    // What the transport said (an HTTP error body, a token in it) stays out of the message, which
    // the model reads and may repeat to the caller; the gateway logs it (the cause). Our own OAuth
    // layer's words are safe, and say what an operator must do.
    const own = oauthFailure(error);
    throw new ToolCallError(
      'tool_transport_failed',
      own ? `Tool "${target.name}" got no answer: ${own.message}` : `Tool "${target.name}" got no answer: the MCP server "${target.server}" failed (the service log has the details).`,
      { cause: error },
    );
  } finally {
    task?.release();
  }
}

/**
 * Asks for progress (the SDK sends a progressToken when `onprogress` is given) and lets each report
 * start the call's timeout again, never past `maxTimeoutMs` in all; the caller keeps its own
 * deadline the same way (lib/agent/loop/run-tools.ts).
 */
function progressOptions(options: ToolCallOptions): Pick<RequestOptions, 'onprogress' | 'resetTimeoutOnProgress' | 'maxTotalTimeout'> {
  const onProgress = options.onProgress;
  if (!onProgress) return {};
  return {
    onprogress: ({ progress, total, message }) => onProgress({ progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) }),
    resetTimeoutOnProgress: true,
    maxTotalTimeout: Math.max(options.timeoutMs, options.maxTimeoutMs ?? options.timeoutMs),
  };
}

/**
 * Whom the call is for, and the turn's W3C trace context under the bare keys `traceparent` and
 * `tracestate`, as the MCP proposal for trace context propagation puts them (SEP-414).
 */
function callerMeta(caller: ToolCallOptions['caller']): { _meta?: Record<string, string> } {
  const trace = currentTraceContext();
  if (!caller && !trace) return {};
  return {
    _meta: {
      ...(caller?.owner === undefined ? {} : { [CALLER_META_KEYS.owner]: caller.owner }),
      ...(caller ? { [CALLER_META_KEYS.conversationId]: caller.conversationId } : {}),
      ...trace,
    },
  };
}

/**
 * A tool that runs only as an MCP task: tools/call creates the task, tasks/get polls it (at the
 * interval the server asks for), tasks/result fetches its result. The SDK times each of those
 * requests alone, so the call's own timeout is kept here over all of them; a task still running
 * when it ends is cancelled on the server, best effort.
 */
async function callAsTask(
  connection: ServerConnection,
  params: { name: string; arguments: JsonObject },
  controller: AbortController,
  timeoutMs: number,
): Promise<CallToolResult> {
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  let taskId: string | undefined;
  let finished = false;
  try {
    const stream = connection.client.experimental.tasks.callToolStream(params, undefined, {
      signal: controller.signal,
      timeout: timeoutMs,
      task: {},
    });
    for await (const message of stream) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') {
        finished = true;
        return message.result as CallToolResult;
      }
      if (message.type === 'error') {
        finished = true;
        throw message.error;
      }
    }
    throw new McpError(ErrorCode.InternalError, 'the task ended without a result');
  } finally {
    clearTimeout(timer);
    if (taskId !== undefined && !finished) {
      void connection.client.experimental.tasks.cancelTask(taskId, { timeout: 2_000 }).catch(() => undefined);
    }
  }
}

/** The result was dropped while it arrived (lib/adapters/mcp/bounded/): the session is intact. */
function tooLargeText(target: CallTarget, error: McpError): string {
  const { maxResultBytes } = (error.data ?? {}) as Partial<ResultTooLargeData>;
  return (
    `the result of "${target.name}" was larger than ${maxResultBytes} bytes (tools.maxResultBytes) and was cut off while ` +
    'it arrived; ask for less (a narrower query, fewer items, a smaller page or range)'
  );
}

/** A caller that implements its timeout as an `AbortSignal.timeout()` still gets a timeout error. */
function aborted(target: CallTarget, cause: unknown, reason: unknown): ToolCallError {
  if (reason instanceof DOMException && reason.name === 'TimeoutError') {
    return new ToolCallError('tool_timeout', `Tool "${target.name}" did not answer in time.`, { cause });
  }
  return new ToolCallError('tool_aborted', `The call to tool "${target.name}" was cancelled.`, { cause });
}

/** The service's own OAuth failure behind an error, if that is what it is (it may come wrapped). */
function oauthFailure(error: unknown): McpOAuthError | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof McpOAuthError) return current;
  }
  return undefined;
}
