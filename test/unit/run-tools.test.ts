import { describe, expect, it } from 'vitest';
import { runToolCalls, type ToolRunContext } from '../../lib/agent/loop/run-tools.ts';
import type { RunningCall } from '../../lib/agent/extension-api/extension.ts';
import type { OfferedTool } from '../../lib/agent/loop/tool-policy.ts';
import { waitForAbort } from '../../lib/testing/fake-gateway.ts';
import { getWeather } from '../support/original-tools.ts';

const tool: OfferedTool = { ...getWeather, server: 'fake', needsApproval: false, readOnly: true };

function context(signal: AbortSignal, runTool: ToolRunContext['runTool']): ToolRunContext {
  return { runTool, timeoutMs: 600_000, maxOutputChars: 10_000, maxTurnOutputChars: 100_000, maxConcurrentCalls: 4, signal, now: Date.now };
}

describe('runToolCalls', () => {
  it('stops a running call when the round\'s signal aborts, with its reason, long before the call\'s own limit', async () => {
    // Prepare: the round's signal aborts (the turn's deadline) once the call runs.
    const round = new AbortController();
    const seen: RunningCall[] = [];
    const runTool = (call: RunningCall) => {
      seen.push(call);
      queueMicrotask(() => round.abort(new DOMException('no answer by the deadline', 'TimeoutError')));
      return waitForAbort(call.signal);
    };

    // Act
    const [answer] = await runToolCalls([{ call: { id: 'c1', name: 'getWeather', arguments: '{"city":"上海"}' }, tool, arguments: { city: '上海' } }], context(round.signal, runTool));

    // Assess: the call's own signal carried the round's reason, and its answer says the turn ran out of time.
    expect(seen[0]!.signal.reason).toMatchObject({ message: 'no answer by the deadline' });
    expect(answer).toMatchObject({ record: { ok: false }, message: { content: expect.stringMatching(/ran out of time while "getWeather" was running/) } });
  });

  it('gives each call a signal of its own, which the round\'s signal no longer reaches once the call is over (what the MCP gateway hands the SDK)', async () => {
    // Prepare: two calls that answer at once.
    const round = new AbortController();
    const signals: AbortSignal[] = [];
    const runTool = async (call: RunningCall) => (signals.push(call.signal), { ok: true, text: 'sunny' });
    const calls = ['c1', 'c2'].map((id) => ({ call: { id, name: 'getWeather', arguments: '{}' }, tool, arguments: {} }));

    // Act: the round ends (the turn's deadline) after the calls did.
    await runToolCalls(calls, context(round.signal, runTool));
    round.abort(new Error('turn ended'));

    // Assess
    expect(signals).toHaveLength(2);
    expect(signals[0]).not.toBe(signals[1]);
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false]);
  });

  it('does not start a call when the round\'s signal has already aborted', async () => {
    const round = new AbortController();
    round.abort(new Error('over'));
    const ran: string[] = [];
    const [answer] = await runToolCalls([{ call: { id: 'c1', name: 'getWeather', arguments: '{}' }, tool, arguments: {} }], context(round.signal, async (call) => (ran.push(call.id), { ok: true, text: 'sunny' })));
    expect(ran).toEqual([]);
    expect(answer).toMatchObject({ record: { ok: false }, message: { content: expect.stringMatching(/ran out of time before this call could run/) } });
  });
});
