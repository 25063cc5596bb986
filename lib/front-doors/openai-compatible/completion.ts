/**
 * The response shapes of the Chat Completions API (a `chat.completion` body and the
 * `chat.completion.chunk`s of a stream), for one agent turn. Beside OpenAI's fields each carries
 * `mcp_agent`: clients that know it see the turn's tool activity, the others ignore it.
 */
import { randomUUID } from 'node:crypto';
import type { StopReason, TurnResult } from '../../core/turn.ts';

/** What every body and chunk of one response shares. */
export interface CompletionIdentity {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

type FinishReason = 'stop' | 'length' | 'content_filter';

export function newIdentity(model: string, now: number): CompletionIdentity {
  return { id: `chatcmpl-${randomUUID().replaceAll('-', '')}`, created: Math.floor(now / 1000), model };
}

/**
 * `length` when the turn was cut short (round limit, time, token budget), as a model's reply is at
 * max_tokens; `stop` otherwise, a pause for approval included (its reply asks for it, and
 * `mcp_agent.pendingApprovals` lists the calls). Never `tool_calls`: the agent runs its tools
 * itself, and a client seeing that value would try to run them.
 */
export function finishReason(stopReason: StopReason): FinishReason {
  if (stopReason === 'content_filtered') return 'content_filter';
  return stopReason === 'max_rounds' || stopReason === 'deadline' || stopReason === 'budget_exhausted' || stopReason === 'max_tokens' ? 'length' : 'stop';
}

/** The turn's tokens, all rounds together. */
function usageOf(result: TurnResult): Usage {
  const { promptTokens, completionTokens } = result.usage;
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** The non-streaming response: the message (see TurnText), the usage, and the turn result as `mcp_agent`. */
export function completionBody(identity: CompletionIdentity, content: string, result: TurnResult) {
  return {
    id: identity.id,
    object: 'chat.completion' as const,
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: finishReason(result.stopReason),
      },
    ],
    usage: usageOf(result),
    mcp_agent: result,
  };
}

export interface ChunkParts {
  delta?: { role?: 'assistant'; content?: string };
  finishReason?: FinishReason;
  /** A loop event (`{event, data}`, as the native stream names them) or the turn's end. */
  mcpAgent?: { event: string; data: unknown };
  /** With `include_usage`: null on every chunk but the last. */
  usage?: null;
}

export function chunk(identity: CompletionIdentity, parts: ChunkParts) {
  return {
    ...chunkHead(identity),
    choices: [{ index: 0, delta: parts.delta ?? {}, logprobs: null, finish_reason: parts.finishReason ?? null }],
    ...(parts.usage === null ? { usage: null } : {}),
    ...(parts.mcpAgent ? { mcp_agent: parts.mcpAgent } : {}),
  };
}

/** The last chunk with `include_usage`: no choices, the usage of the whole turn. */
export function usageChunk(identity: CompletionIdentity, result: TurnResult) {
  return { ...chunkHead(identity), choices: [], usage: usageOf(result) };
}

const chunkHead = (identity: CompletionIdentity) => ({
  id: identity.id,
  object: 'chat.completion.chunk' as const,
  created: identity.created,
  model: identity.model,
});
