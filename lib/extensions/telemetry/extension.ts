/**
 * OpenTelemetry's view of a turn, in the GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/): a `chat {model}` span for each
 * model call and an `execute_tool {tool}` span for each tool call that runs, both children of the
 * turn's `invoke_agent` span (traced-agent.ts), which is the current trace context while the turn
 * runs. A tool's span is the current context while its call runs, so its MCP server receives it
 * (lib/adapters/mcp: the traceparent header and `_meta`). It talks only to the telemetry port.
 *
 * It runs after the strategies and the embedding code's extensions (only the turn trace of agent.yml
 * `trace`, which changes nothing, runs inside it), so a chat span times the model call and sees the
 * request exactly as it is sent; plan-execute's planner, executors and summary are model calls like
 * any other.
 */
import { AgentError } from '../../core/errors.ts';
import type { ModelReply } from '../../core/ports/model.ts';
import type { Telemetry, TelemetryAttributes } from '../../core/ports/telemetry.ts';
import { currentTraceContext, withTraceContext } from '../../core/trace-context.ts';
import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import { replyContent, requestContent } from './content.ts';
import { modelAttributes, type ModelIdentity } from './model-attributes.ts';
import { currentTurnScope } from './turn-scope.ts';

export const TELEMETRY_EXTENSION = 'telemetry';

export interface TelemetryExtensionSettings {
  model: ModelIdentity;
  /** telemetry.captureContent: messages and tool payloads on the spans. */
  captureContent: boolean;
  now?: () => number;
}

export function telemetryExtension(telemetry: Telemetry, settings: TelemetryExtensionSettings): AgentExtension {
  const { tracer, metrics } = telemetry;
  const now = settings.now ?? Date.now;
  const model = modelAttributes(settings.model);

  return {
    name: TELEMETRY_EXTENSION,
    turnStart(turn) {
      // A paused turn taken up again: how long its calls waited for a person.
      const pausedAt = turn.state.pausedAt;
      if (typeof pausedAt === 'number') turn.scratch.approvalWaitMs = Math.max(0, now() - pausedAt);
      turn.state = {};
    },
    async aroundModelCall(request, next, turn) {
      const operation = { 'gen_ai.operation.name': 'chat', ...model };
      const span = tracer.startSpan(`chat ${settings.model.name}`, {
        kind: 'client',
        ...parent(),
        attributes: {
          ...operation,
          'gen_ai.conversation.id': turn.conversationId,
          'gen_ai.request.max_tokens': request.maxTokens,
          'mcp_agent.round': turn.round,
          ...(settings.captureContent ? requestContent(request.messages) : {}),
        },
      });
      const started = now();
      try {
        const reply = await next(request);
        const finishReason = finishReasonOf(reply);
        const usage = { 'gen_ai.usage.input_tokens': reply.usage.promptTokens, 'gen_ai.usage.output_tokens': reply.usage.completionTokens };
        span.setAttributes({
          'gen_ai.response.model': settings.model.name,
          'gen_ai.response.finish_reasons': [finishReason],
          ...usage,
          ...(reply.usage.cacheReadTokens === undefined ? {} : { 'gen_ai.usage.cache_read.input_tokens': reply.usage.cacheReadTokens }),
          ...(settings.captureContent ? replyContent(reply, finishReason) : {}),
        });
        const measured = { ...operation, 'gen_ai.response.model': settings.model.name };
        metrics.recordTokenUsage(reply.usage.promptTokens, { ...measured, 'gen_ai.token.type': 'input' });
        metrics.recordTokenUsage(reply.usage.completionTokens, { ...measured, 'gen_ai.token.type': 'output' });
        metrics.recordOperationDuration((now() - started) / 1000, measured);
        return reply;
      } catch (error) {
        // As the loop counts it: whatever a model client throws is a model that failed.
        const errorType = error instanceof AgentError ? error.code : 'model_unavailable';
        span.fail(errorType, error instanceof Error ? error.message : String(error));
        metrics.recordOperationDuration((now() - started) / 1000, { ...operation, 'error.type': errorType });
        throw error;
      } finally {
        span.end();
      }
    },
    async aroundToolCall(call, next, turn) {
      const decision = currentTurnScope()?.decisions.get(call.id);
      const attributes: TelemetryAttributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.call.id': call.id,
        // An MCP server's tool runs elsewhere on the agent's behalf (`extension`); a built-in one here (`function`).
        'gen_ai.tool.type': call.server === undefined ? 'function' : 'extension',
        'gen_ai.conversation.id': turn.conversationId,
        'mcp_agent.tool.server': call.server,
        'mcp_agent.approval.decision': decision,
        'mcp_agent.approval.wait_ms': decision === undefined ? undefined : (turn.scratch.approvalWaitMs as number | undefined),
        ...(settings.captureContent ? { 'gen_ai.tool.call.arguments': JSON.stringify(call.arguments) } : {}),
      };
      const span = tracer.startSpan(`execute_tool ${call.name}`, { ...parent(), attributes });
      try {
        const output = await withTraceContext(span.context, next);
        span.setAttributes({ 'mcp_agent.tool.outcome': output.ok ? 'ok' : 'tool_error', ...(settings.captureContent ? { 'gen_ai.tool.call.result': output.text } : {}) });
        if (!output.ok) span.fail('tool_error');
        return output;
      } catch (error) {
        const errorType = error instanceof AgentError ? error.code : 'tool_failed';
        span.setAttributes({ 'mcp_agent.tool.outcome': errorType });
        span.fail(errorType, error instanceof Error ? error.message : String(error));
        throw error;
      } finally {
        span.end();
      }
    },
    turnEnd(result, turn) {
      if (result.stopReason === 'approval_required' || result.stopReason === 'input_required') turn.state = { pausedAt: now() };
    },
  };
}

/** The turn's span (or the caller's context) is the parent of every span of the turn. */
function parent() {
  const context = currentTraceContext();
  return context ? { parent: context } : {};
}

/** gen_ai.response.finish_reasons, in the conventions' words; decided on the reply, as the loop decides. */
function finishReasonOf(reply: ModelReply): string {
  if (reply.stop === 'max_tokens') return 'length';
  if (reply.stop === 'content_filtered') return 'content_filter';
  return reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}
