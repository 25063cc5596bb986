/**
 * The turn's span: `invoke_agent {agent}` around every question and every decision on a paused
 * turn, a child of the caller's trace context (the traceparent of the HTTP request, SQS message or
 * EventBridge event) and the parent of everything the turn does: its model calls, tool calls and
 * store writes. Its attributes say which turn of which conversation it was and how it stopped.
 * Calls a paused turn leaves waiting, and calls a decision declines, get an `execute_tool` span of
 * their own that says so, for they never run. The buffers are flushed when the turn ends.
 */
import { AgentError } from '../../core/errors.ts';
import type { Telemetry } from '../../core/ports/telemetry.ts';
import type { TurnResult } from '../../core/turn.ts';
import type { TraceContext } from '../../core/trace-context.ts';
import type { Agent } from '../../agent/agent-api.ts';
import { modelAttributes, type ModelIdentity } from './model-attributes.ts';
import { withTurnScope, type Decision, type TurnScope } from './turn-scope.ts';

export interface TracedAgentSettings {
  /** gen_ai.agent.name: the service's name. */
  agentName: string;
  model: ModelIdentity;
  now?: () => number;
}

export function tracedAgent(agent: Agent, telemetry: Telemetry, settings: TracedAgentSettings): Agent {
  const now = settings.now ?? Date.now;
  const model = modelAttributes(settings.model);

  async function traced(
    input: { conversationId?: string; requestId?: string; trace?: TraceContext },
    scope: TurnScope,
    run: (trace: TraceContext) => Promise<TurnResult>,
  ): Promise<TurnResult> {
    const operation = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': settings.agentName, ...model };
    const span = telemetry.tracer.startSpan(`invoke_agent ${settings.agentName}`, {
      ...(input.trace ? { parent: input.trace } : {}),
      attributes: { ...operation, 'gen_ai.conversation.id': input.conversationId, 'mcp_agent.request.id': input.requestId, 'mcp_agent.decisions': scope.decisions.size || undefined },
    });
    const started = now();
    try {
      const result = await withTurnScope(scope, () => run(span.context));
      span.setAttributes({
        'gen_ai.conversation.id': result.conversationId,
        'mcp_agent.turn': result.turn,
        'mcp_agent.stop_reason': result.stopReason,
        'mcp_agent.rounds': result.rounds,
        'mcp_agent.tool_calls': result.toolCalls.length,
        'gen_ai.usage.input_tokens': result.usage.promptTokens,
        'gen_ai.usage.output_tokens': result.usage.completionTokens,
      });
      if (result.error) span.fail(result.error.code, result.error.message);
      waitingCalls(result, span.context);
      declinedCalls(scope, result, span.context);
      telemetry.metrics.recordOperationDuration((now() - started) / 1000, operation);
      return result;
    } catch (error) {
      const errorType = error instanceof AgentError ? error.code : 'internal_error';
      span.fail(errorType, error instanceof Error ? error.message : String(error));
      telemetry.metrics.recordOperationDuration((now() - started) / 1000, { ...operation, 'error.type': errorType });
      throw error;
    } finally {
      span.end();
      await telemetry.flush();
    }
  }

  /** A paused turn's calls: each waits for a person (or for the answer to its server's question). */
  function waitingCalls(result: TurnResult, parent: TraceContext): void {
    const waiting = [
      ...(result.pendingApprovals ?? []).map((call) => ({ id: call.toolCallId, name: call.name, server: call.server, outcome: 'approval_required' })),
      ...(result.pendingElicitations ?? []).map((call) => ({ id: call.toolCallId, name: call.name, server: call.server, outcome: 'input_required' })),
    ];
    for (const call of waiting) toolSpan(parent, call, result.conversationId);
  }

  /** Calls this request declined: answered "declined" to the model, never run. */
  function declinedCalls(scope: TurnScope, result: TurnResult, parent: TraceContext): void {
    for (const [id, decision] of scope.decisions) {
      if (decision !== 'declined') continue;
      const name = result.toolCalls.find((call) => call.id === id)?.name;
      toolSpan(parent, { id, name: name ?? 'unknown', outcome: 'declined', decision: 'declined' }, result.conversationId);
    }
  }

  function toolSpan(parent: TraceContext, call: { id: string; name: string; server?: string; outcome: string; decision?: string }, conversationId: string): void {
    telemetry.tracer
      .startSpan(`execute_tool ${call.name}`, {
        parent,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.name,
          'gen_ai.tool.call.id': call.id,
          'gen_ai.tool.type': 'extension',
          'gen_ai.conversation.id': conversationId,
          'mcp_agent.tool.server': call.server,
          'mcp_agent.tool.outcome': call.outcome,
          'mcp_agent.approval.decision': call.decision,
        },
      })
      .end();
  }

  return {
    ...agent,
    ask: (input) => traced(input, { decisions: new Map() }, (trace) => agent.ask({ ...input, trace })),
    decide: (input) => {
      const decisions = new Map(input.decisions.map((decision): [string, Decision] => [decision.toolCallId, decision.approved === undefined ? 'answered' : decision.approved ? 'approved' : 'declined']));
      return traced(input, { decisions }, (trace) => agent.decide({ ...input, trace }));
    },
  };
}
