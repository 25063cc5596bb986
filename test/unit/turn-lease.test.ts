/**
 * Which turns keep their claim's lease alive, on a fake clock: a question and a decision that run
 * past a third of turn.leaseSeconds renew their claim and their turn slot; a paused turn, and a
 * turn that ended, renew nothing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ConversationStore } from '../../lib/core/ports/conversation-store.ts';
import type { OwnerCounters } from '../../lib/core/ports/owner-counters.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { testGateway } from '../support/agent-fixture.ts';

const START = Date.UTC(2025, 0, 1, 12, 0, 0);
const LEASE = 'turn: { leaseSeconds: 30 }\nmcpServers:\n  fake: { command: unused, requireApproval: destructive }';

/** A model step that answers when the test says so. */
function gated(reply: ReturnType<typeof textReply>) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const step: ScriptedStep = async () => {
    await gate;
    return reply;
  };
  return { step, open };
}

/** The store and counters, logging each renewal with the lease end it asks for. */
function renewalsLogged() {
  const store = createMemoryConversationStore();
  const counters = createMemoryOwnerCounters();
  const renewals: string[] = [];
  const loggedStore: ConversationStore = { ...store, renewLease: (key, turn, expected, until, options) => (renewals.push(`claim ${turn} to +${(until - START) / 1000} s`), store.renewLease(key, turn, expected, until, options)) };
  const loggedCounters: OwnerCounters = { ...counters, renewTurnSlot: (slot, until, options) => (renewals.push(`slot to +${(until - START) / 1000} s`), counters.renewTurnSlot(slot, until, options)) };
  return { store: loggedStore, counters: loggedCounters, renewals };
}

function agentWith(script: ScriptedStep[], logged: ReturnType<typeof renewalsLogged>, yaml = '') {
  const config = parseConfig(`maxRounds: 4\n${LEASE}\n${yaml}`, { source: 'test.yml', environment: {} });
  return createAgent(config, { model: createScriptedModel(script), gateway: testGateway(), store: logged.store, ownerCounters: logged.counters, logger: silentLogger });
}

describe('a turn’s lease, kept while it runs', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('renews a question’s claim and its turn slot a third of the way through the lease, and nothing after the turn is stored', async () => {
    const logged = renewalsLogged();
    const slow = gated(textReply('done'));
    const agent = agentWith([slow.step], logged);
    const asked = agent.ask({ conversationId: 'long-question', owner: 'alice', message: 'take your time' });
    await vi.advanceTimersByTimeAsync(9_000);
    expect(logged.renewals).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(logged.renewals.sort()).toEqual(['claim 1 to +40 s', 'slot to +40 s']);
    slow.open();
    await expect(asked).resolves.toMatchObject({ stopReason: 'completed' });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(logged.renewals).toHaveLength(2);
  });

  it('renews a plan-execute turn’s claim while its planner thinks', async () => {
    const logged = renewalsLogged();
    const slow = gated(textReply('不需要计划：直接回答。'));
    const agent = agentWith([slow.step, ...Array.from({ length: 4 }, () => textReply('直接回答。'))], logged, 'strategy: plan-execute');
    const asked = agent.ask({ conversationId: 'planned', message: '你好' });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(logged.renewals).toEqual(['claim 1 to +40 s']);
    slow.open();
    await expect(asked).resolves.toMatchObject({ turn: 1 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(logged.renewals).toHaveLength(1);
  });

  it('renews nothing while a turn is paused for approval, and renews the resumed turn while its decision runs', async () => {
    const logged = renewalsLogged();
    const slow = gated(textReply('已取消'));
    const agent = agentWith([toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }]), slow.step], logged);
    const paused = await agent.ask({ conversationId: 'paused', message: 'cancel ORD1' });
    expect(paused.stopReason).toBe('approval_required');
    await vi.advanceTimersByTimeAsync(300_000);
    expect(logged.renewals).toEqual([]);

    const decided = agent.decide({ conversationId: 'paused', decisions: [{ toolCallId: 'c1', approved: true }] });
    await vi.advanceTimersByTimeAsync(10_000);
    // A third of a lease after the decision took the turn over (at +300 s), to a lease from then.
    expect(logged.renewals).toEqual(['claim 1 to +340 s']);
    slow.open();
    await expect(decided).resolves.toMatchObject({ stopReason: 'completed' });
  });
});
