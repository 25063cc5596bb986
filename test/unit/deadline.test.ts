import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadlineSignal, eitherSignal, followSignal, idleDeadlineSignal, sharedDeadline, withDeadline } from '../../lib/core/deadline.ts';
import { textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

/** Timers that keep the process alive: every deadline's timer until it is cleared. */
const liveTimers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('deadlineSignal', () => {
  it('aborts with a TimeoutError when the time is up', () => {
    vi.useFakeTimers();
    const deadline = deadlineSignal(1_000);

    vi.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);

    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError', message: 'no answer within 1000 ms' });
  });

  it('never aborts once cleared, and leaves no timer behind', () => {
    vi.useFakeTimers();
    const deadline = deadlineSignal(1_000);

    deadline.clear();
    vi.advanceTimersByTime(5_000);

    expect(deadline.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('withDeadline', () => {
  it('clears the timer when the work fails too', async () => {
    vi.useFakeTimers();
    await expect(withDeadline(1_000, () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('sharedDeadline', () => {
  it('gives the calls started while enough time is left one signal, which aborts at the moment', async () => {
    vi.useFakeTimers();
    const deadline = sharedDeadline(Date.now() + 1_000, Date.now, 250);
    const signals: AbortSignal[] = [];

    await deadline.run(async (signal) => signals.push(signal));
    vi.advanceTimersByTime(600);
    await deadline.run(async (signal) => signals.push(signal));

    expect(signals[1]).toBe(signals[0]);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(399);
    expect(signals[0]!.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signals[0]!.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('gives a call started with less than the least time left that least time of its own', async () => {
    vi.useFakeTimers();
    const deadline = sharedDeadline(Date.now() + 100, Date.now, 250);
    let seen: AbortSignal | undefined;
    const call = deadline.run((signal) => {
      seen = signal;
      return new Promise((resolve) => signal.addEventListener('abort', resolve));
    });

    vi.advanceTimersByTime(249);
    expect(seen!.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    await call;
    expect(seen!.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no timer once ended, and then times each call by itself', async () => {
    vi.useFakeTimers();
    const deadline = sharedDeadline(Date.now() + 1_000, Date.now, 250);
    const first = await deadline.run(async (signal) => signal);

    deadline.end();
    expect(vi.getTimerCount()).toBe(0);
    const later = await deadline.run(async (signal) => {
      expect(vi.getTimerCount()).toBe(1);
      return signal;
    });

    expect(later).not.toBe(first);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5_000);
    expect(first.aborted).toBe(false);
  });
});

describe('a turn', () => {
  it('leaves no timer behind: model calls, tool calls, store writes and decided calls each clear theirs', async () => {
    // Prepare: a tool round, a pause for approval, and the approved call run with the decision.
    const timeout = vi.spyOn(AbortSignal, 'timeout');
    const { agent } = agentFixture(
      [
        toolCallsReply([{ id: 'w1', name: 'getWeather', arguments: { city: '上海' } }]),
        toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }]),
        textReply('已取消'),
      ],
      { yaml: 'maxRounds: 4\nmcpServers:\n  fake: { command: unused, requireApproval: destructive }' },
    );
    const before = liveTimers();

    // Act
    const paused = await agent.ask({ conversationId: 'timers', message: '天气，然后取消订单 ORD1' });
    const resumed = await agent.decide({ conversationId: 'timers', decisions: [{ toolCallId: 'c1', approved: true }] });

    // Assess
    expect(paused.stopReason).toBe('approval_required');
    expect(resumed).toMatchObject({ stopReason: 'completed', reply: '已取消' });
    expect(timeout).not.toHaveBeenCalled();
    expect(liveTimers()).toBe(before);
  });
});

describe('idleDeadlineSignal', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts after the idle time without progress', () => {
    const deadline = idleDeadlineSignal(3_000, 10_000);
    vi.advanceTimersByTime(2_999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('starts the idle time again at each progress, never past the maximum in all', () => {
    const deadline = idleDeadlineSignal(3_000, 10_000);
    for (let second = 1; second <= 9; second++) {
      vi.advanceTimersByTime(1_000);
      deadline.extend();
      expect(deadline.signal.aborted).toBe(false);
    }
    vi.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError', message: expect.stringContaining('10000 ms') });
  });

  it('aborts with the caller\'s reason when the caller\'s signal aborts first, and no time limit follows', () => {
    const caller = new AbortController();
    const deadline = idleDeadlineSignal(3_000, 10_000, caller.signal);
    vi.advanceTimersByTime(1_000);
    caller.abort(new Error('the turn ended'));
    expect(deadline.signal.reason).toMatchObject({ message: 'the turn ended' });
    vi.advanceTimersByTime(10_000);
    expect(deadline.signal.reason).toMatchObject({ message: 'the turn ended' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is aborted at once when the caller\'s signal already is, with no timer', () => {
    const deadline = idleDeadlineSignal(3_000, 10_000, AbortSignal.abort(new Error('too late')));
    expect(deadline.signal.reason).toMatchObject({ message: 'too late' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('follows neither the time nor the caller once cleared', () => {
    const caller = new AbortController();
    const deadline = idleDeadlineSignal(3_000, 10_000, caller.signal);
    deadline.clear();
    caller.abort(new Error('later'));
    vi.advanceTimersByTime(10_000);
    expect(deadline.signal.aborted).toBe(false);
  });

  it('stops following the caller when its time is up', () => {
    const caller = new AbortController();
    const listened = vi.spyOn(caller.signal, 'removeEventListener');
    const deadline = idleDeadlineSignal(3_000, 10_000, caller.signal);
    vi.advanceTimersByTime(3_000);
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError' });
    expect(listened).toHaveBeenCalledWith('abort', expect.any(Function));
    caller.abort(new Error('after'));
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError' });
  });
});

describe('followSignal', () => {
  it('aborts with the source\'s reason while followed, and no longer once released', () => {
    const turn = new AbortController();
    const first = followSignal(turn.signal);
    const second = followSignal(turn.signal);
    first.release();

    turn.abort(new Error('turn ended'));

    expect(first.signal.aborted).toBe(false);
    expect(second.signal.aborted).toBe(true);
    expect((second.signal.reason as Error).message).toBe('turn ended');
  });

  it('is aborted from the start when its source already is', () => {
    const reason = new DOMException('no answer within 5 ms', 'TimeoutError');
    const followed = followSignal(AbortSignal.abort(reason));
    expect(followed.signal.aborted).toBe(true);
    expect(followed.signal.reason).toBe(reason);
  });
});

describe('eitherSignal', () => {
  it('aborts with the reason of whichever signal aborts first, as AbortSignal.any does', () => {
    for (const which of ['first', 'second'] as const) {
      const first = new AbortController();
      const second = new AbortController();
      const either = eitherSignal(first.signal, second.signal);
      const expected = AbortSignal.any([first.signal, second.signal]);
      (which === 'first' ? first : second).abort(new Error(`${which} ended`));
      (which === 'first' ? second : first).abort(new Error('too late'));
      expect(either.signal.aborted).toBe(true);
      expect(either.signal.reason).toBe(expected.reason);
      expect((either.signal.reason as Error).message).toBe(`${which} ended`);
    }
  });

  it('is aborted from the start when a signal already is', () => {
    const reason = new DOMException('no answer within 5 ms', 'TimeoutError');
    const either = eitherSignal(new AbortController().signal, AbortSignal.abort(reason));
    expect(either.signal.aborted).toBe(true);
    expect(either.signal.reason).toBe(reason);
  });

  it('follows neither signal once released, so a long-lived signal keeps no listener per call', () => {
    const turn = new AbortController();
    const call = new AbortController();
    const listeners: unknown[] = [];
    const add = vi.spyOn(turn.signal, 'addEventListener').mockImplementation(function (this: AbortSignal, ...args: Parameters<AbortSignal['addEventListener']>) {
      listeners.push(args[1]);
      return EventTarget.prototype.addEventListener.apply(this, args);
    });
    const remove = vi.spyOn(turn.signal, 'removeEventListener');
    const either = eitherSignal(turn.signal, call.signal);
    either.release();
    turn.abort(new Error('the turn ended'));
    expect(either.signal.aborted).toBe(false);
    expect(add).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledWith('abort', listeners[0]);
  });
});
