/**
 * What the budgets cost in DynamoDB requests, counted on the wire (dynalite): a turn with budgets
 * off, with the default concurrentTurnsPerOwner, with every limit on, and the refusals. The table of
 * docs/budgets.md is these numbers.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDocuments } from '../../lib/adapters/dynamodb/documents.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoOwnerCounters } from '../../lib/adapters/dynamodb/owner-counters.ts';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { testGateway } from '../support/agent-fixture.ts';
import { createLocalDynamo, type LocalTable, startLocalTable } from '../support/dynalite.ts';

let table: LocalTable;
let dynamo: DynamoDocuments;
let commands: string[] = [];

beforeAll(async () => {
  table = await startLocalTable();
  // The lean client the functions use, counting the requests it sends.
  dynamo = createLocalDynamo(table.endpoint, { onRequest: (operation) => commands.push(operation) });
});
afterAll(async () => {
  await table?.close();
});

const EVERY_LIMIT = 'limits: { tokensPerTurn: 100000, tokensPerConversation: 100000, tokensPerOwnerPerDay: 100000, concurrentTurnsPerOwner: 4 }';
const weather = (id: string) => toolCallsReply([{ id, name: 'getWeather', arguments: { city: '上海' } }]);
/** Three model calls: two read-only tool rounds and the answer. */
const threeCalls = (): ScriptedStep[] => [weather('w1'), weather('w2'), textReply('done')];

function agentWith(yaml: string, script: ScriptedStep[]) {
  const config = parseConfig(`maxRounds: 6\n${yaml}`, { source: 'test.yml', environment: {} });
  return createAgent(config, {
    model: createScriptedModel(script),
    gateway: testGateway(),
    store: createDynamoConversationStore({ client: dynamo, tableName: table.tableName, ttlDays: 30 }),
    ownerCounters: createDynamoOwnerCounters({ client: dynamo, tableName: table.tableName }),
    logger: silentLogger,
  });
}

/** The requests of one call, counted per operation (the slot and the day's count are read side by side). */
async function requestsOf(work: () => Promise<unknown>): Promise<Record<string, number>> {
  commands = [];
  await work().catch(() => undefined);
  const counts: Record<string, number> = {};
  for (const command of commands) counts[command] = (counts[command] ?? 0) + 1;
  return counts;
}

describe('DynamoDB requests of a turn of three model calls', () => {
  it('budgets off: one Query, two writes', async () => {
    const agent = agentWith('limits: { concurrentTurnsPerOwner: 0 }', threeCalls());
    expect(await requestsOf(() => agent.ask({ conversationId: `c-${randomUUID()}`, owner: 'alice', message: 'weather' }))).toEqual({ Query: 1, PutItem: 2 });
  });

  it('a new conversation (no conversationId): its turn 1 claimed without the Query, two writes', async () => {
    const agent = agentWith('limits: { concurrentTurnsPerOwner: 0 }', threeCalls());
    expect(await requestsOf(() => agent.ask({ owner: 'alice', message: 'weather' }))).toEqual({ PutItem: 2 });
  });

  it('a new conversation asked again with the same requestId: the claim finds turn 1 taken, the Query finds it complete, and it is replayed', async () => {
    const agent = agentWith('limits: { concurrentTurnsPerOwner: 0 }', threeCalls());
    const requestId = `r-${randomUUID()}`;
    const first = await agent.ask({ owner: 'alice', message: 'weather', requestId });
    let again: Awaited<ReturnType<typeof agent.ask>> | undefined;
    // The claim's condition fails, the store reads back what holds turn 1, then the usual Query.
    expect(await requestsOf(async () => (again = await agent.ask({ owner: 'alice', message: 'weather', requestId })))).toEqual({ PutItem: 1, GetItem: 1, Query: 1 });
    expect(again).toEqual(first);
    expect((await agent.getConversation({ conversationId: first.conversationId, owner: 'alice' })).turns).toHaveLength(1);
  });

  it('budgets off, todoList on: the same; the list is stored with the turn, in the same item', async () => {
    const conversationId = `c-${randomUUID()}`;
    const todos = [{ content: 'check the weather', status: 'in_progress' }];
    const agent = agentWith('limits: { concurrentTurnsPerOwner: 0 }\ntodoList: true', [toolCallsReply([{ id: 't1', name: 'write_todos', arguments: { todos } }]), weather('w1'), textReply('done')]);
    expect(await requestsOf(() => agent.ask({ conversationId, owner: 'alice', message: 'weather' }))).toEqual({ Query: 1, PutItem: 2 });
    expect((await agent.getConversation({ conversationId, owner: 'alice' })).todos).toEqual(todos);
  });

  it('no owner (authentication off), default limits: the same, turn slots are per owner', async () => {
    const agent = agentWith('', threeCalls());
    expect(await requestsOf(() => agent.ask({ conversationId: `c-${randomUUID()}`, message: 'weather' }))).toEqual({ Query: 1, PutItem: 2 });
  });

  it('default limits (concurrentTurnsPerOwner: 4): a slot taken and given back, two writes more', async () => {
    const agent = agentWith('', threeCalls());
    expect(await requestsOf(() => agent.ask({ conversationId: `c-${randomUUID()}`, owner: 'alice', message: 'weather' }))).toEqual({ Query: 1, PutItem: 3, DeleteItem: 1 });
  });

  it('every limit on: also one read of the owner’s day and one update per model call', async () => {
    const agent = agentWith(EVERY_LIMIT, threeCalls());
    expect(await requestsOf(() => agent.ask({ conversationId: `c-${randomUUID()}`, owner: 'bob', message: 'weather' }))).toEqual({ Query: 1, GetItem: 1, PutItem: 3, UpdateItem: 3, DeleteItem: 1 });
  });

  it('a short lease (turn.leaseSeconds: 3) renews nothing in a turn shorter than a third of it: the same requests', async () => {
    const alone = agentWith('turn: { leaseSeconds: 3 }\nlimits: { concurrentTurnsPerOwner: 0 }', threeCalls());
    expect(await requestsOf(() => alone.ask({ conversationId: `c-${randomUUID()}`, owner: 'alice', message: 'weather' }))).toEqual({ Query: 1, PutItem: 2 });
    const slotted = agentWith('turn: { leaseSeconds: 3 }', threeCalls());
    expect(await requestsOf(() => slotted.ask({ conversationId: `c-${randomUUID()}`, owner: 'alice', message: 'weather' }))).toEqual({ Query: 1, PutItem: 3, DeleteItem: 1 });
  });

  it.each([
    ['without turn slots', 'limits: { concurrentTurnsPerOwner: 0 }', 1, { Query: 1, PutItem: 2, UpdateItem: 1 }],
    ['with a turn slot, renewed with the claim', '', 2, { Query: 1, PutItem: 3, UpdateItem: 2, DeleteItem: 1 }],
  ])('a turn that outlives a third of its lease renews it: one UpdateItem per claim it holds, %s', async (_name, limits, renewals, expected) => {
    // The model answers once the renewals went out (a third of 3 s after the claim), as a slow model would.
    const renewed = (): Promise<void> => new Promise((resolve) => {
      const check = () => (commands.filter((command) => command === 'UpdateItem').length >= renewals ? resolve() : setTimeout(check, 20));
      check();
    });
    const slowAnswer: ScriptedStep = async () => {
      await renewed();
      return textReply('done');
    };
    const agent = agentWith(`turn: { leaseSeconds: 3 }\n${limits}`, [slowAnswer]);
    const counts = await requestsOf(() => agent.ask({ conversationId: `c-${randomUUID()}`, owner: 'frank', message: 'weather' }));
    expect(counts).toEqual(expected);
  });

  it('a conversation whose budget is spent is refused before its turn is claimed: no claim to write and give back', async () => {
    const agent = agentWith('limits: { tokensPerConversation: 10, tokensPerOwnerPerDay: 100000 }', [textReply('over the budget')]);
    const conversationId = `c-${randomUUID()}`;
    await agent.ask({ conversationId, owner: 'carol', message: 'first' });
    expect(await requestsOf(() => agent.ask({ conversationId, owner: 'carol', message: 'again' }))).toEqual({ Query: 1, GetItem: 1, PutItem: 1, DeleteItem: 1 });
  });

  it('an owner whose day is spent is refused before the conversation is read', async () => {
    const agent = agentWith('limits: { tokensPerOwnerPerDay: 10 }', [textReply('over the budget')]);
    await agent.ask({ conversationId: `c-${randomUUID()}`, owner: 'dave', message: 'first' });
    expect(await requestsOf(() => agent.ask({ conversationId: `c-${randomUUID()}`, owner: 'dave', message: 'again' }))).toEqual({ GetItem: 1, PutItem: 1, DeleteItem: 1 });
  });

  it('an owner at its turn limit is refused after trying each slot once', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const arrivals: Array<() => void> = [];
    const arrived = [0, 1].map((index) => new Promise<void>((resolve) => (arrivals[index] = resolve)));
    const waiting = (index: number, reply: string): ScriptedStep => async () => {
      arrivals[index]!();
      await held;
      return textReply(reply);
    };
    const agent = agentWith('limits: { concurrentTurnsPerOwner: 2 }', [waiting(0, 'one'), waiting(1, 'two')]);
    const running = [agent.ask({ conversationId: `c-${randomUUID()}`, owner: 'erin', message: 'one' }), agent.ask({ conversationId: `c-${randomUUID()}`, owner: 'erin', message: 'two' })];
    await Promise.all(arrived);

    expect(await requestsOf(() => agent.ask({ conversationId: `c-${randomUUID()}`, owner: 'erin', message: 'three' }))).toEqual({ PutItem: 2 });
    release();
    await Promise.all(running);
  });
});
