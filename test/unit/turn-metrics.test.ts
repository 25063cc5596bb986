import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { powertoolsTurnMetrics } from '../../lib/adapters/powertools/metrics.ts';
import type { TurnResult } from '../../lib/core/turn.ts';

/** Captures the embedded-metric-format documents Powertools writes to stdout. */
function capture() {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split('\n').filter((line) => line.startsWith('{')));
    return true;
  });
  const metrics = new Metrics({ namespace: 'McpAgentTest', serviceName: 'mcp-agent' });
  return { metrics, documents: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

const result: TurnResult = {
  conversationId: 'c1', turn: 3, reply: 'ok', stopReason: 'max_rounds', rounds: 4,
  toolCalls: [
    { id: 'a', name: 'getWeather', arguments: {}, ok: true, durationMs: 5 },
    { id: 'b', name: 'getNews', arguments: {}, ok: false, durationMs: 7 },
  ],
  usage: { promptTokens: 300, completionTokens: 40 },
};

describe('powertoolsTurnMetrics', () => {
  it('emits rounds, tool calls, tool errors, tokens and latency for a finished turn', () => {
    const { metrics, documents } = capture();
    powertoolsTurnMetrics(metrics).turnCompleted(result, 1234);
    metrics.publishStoredMetrics();
    const all = documents();
    const merged = Object.assign({}, ...all);
    expect(merged).toMatchObject({ Rounds: 4, ToolCalls: 2, ToolErrors: 1, PromptTokens: 300, CompletionTokens: 40, TurnLatency: 1234 });
    expect(all.some((document) => document.stopReason === 'max_rounds' && document.Turns === 1)).toBe(true);
  });

  it('counts a failed turn by its error code', () => {
    const { metrics, documents } = capture();
    powertoolsTurnMetrics(metrics).turnFailed('model_timeout', 60_000);
    metrics.publishStoredMetrics();
    expect(documents().some((document) => document.errorCode === 'model_timeout' && document.TurnFailures === 1)).toBe(true);
  });

  it.each([
    ['tokensPerConversation', 'stopped'],
    ['concurrentTurnsPerOwner', 'refused'],
  ] as const)('counts a %s limit reached (%s) by limit and outcome', (limit, outcome) => {
    const { metrics, documents } = capture();
    powertoolsTurnMetrics(metrics).limitReached!(limit, outcome);
    metrics.publishStoredMetrics();
    expect(documents().some((document) => document.limit === limit && document.outcome === outcome && document.LimitReached === 1)).toBe(true);
  });
});
