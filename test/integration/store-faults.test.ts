import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDocumentClient } from '../../lib/adapters/dynamodb/client.ts';
import type { DynamoDocuments } from '../../lib/adapters/dynamodb/documents.ts';
import { documentsFromClient } from '../../lib/adapters/dynamodb/sdk-documents.ts';
import { leanDynamoFromEnvironment } from '../../lib/lean-dynamo.ts';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createHttpHandler } from '../../lib/front-doors/handlers.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture, cancelTool, testGateway, weatherTool } from '../support/agent-fixture.ts';
import { startFaultProxy, type FaultProxy } from '../support/dynamodb-fault-proxy.ts';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';

/**
 * The conversation store under faults, through the whole service: the HTTP contract, the agent, the
 * DynamoDB store and its client (with the production timeouts), a fault-injecting proxy, dynalite.
 * Each case asserts what the client gets, that the conversation is not locked afterwards, and that
 * no turn is lost or doubled.
 */

let table: LocalTable;
let proxy: FaultProxy;
beforeAll(async () => {
  table = await startLocalTable();
  proxy = await startFaultProxy({ target: table.endpoint });
});
afterEach(() => proxy.clear());
afterAll(async () => {
  await proxy?.close();
  await table?.close();
});

const YAML = `
conversation: { requestTimeoutSeconds: 0.5, connectTimeoutSeconds: 0.5 }
turn: { timeoutSeconds: 4, reserveSeconds: 1, leaseMarginSeconds: 2 }
`;

/** A turn with far more time than a store outage should cost a caller who has nothing running. */
const LONG_TURN = YAML.replace('timeoutSeconds: 4', 'timeoutSeconds: 40');

/**
 * The store's client with the production timeouts, through the proxy: the lean client the
 * functions use, or the SDK's document client as createDynamoDocumentClient builds it for embedders.
 */
const storeClient = (kind: 'lean' | 'sdk' = 'lean'): DynamoDocuments =>
  kind === 'sdk'
    ? documentsFromClient(createDynamoDocumentClient(
        { requestTimeoutSeconds: 0.5, connectTimeoutSeconds: 0.5 },
        { config: { endpoint: proxy.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } },
      ))
    : leanDynamoFromEnvironment({ requestTimeoutSeconds: 0.5, connectTimeoutSeconds: 0.5 }, { AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, AWS_REGION: 'local', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });

function service(script: ScriptedStep[], gateway = testGateway(), yaml = YAML, now?: () => number) {
  const client = storeClient();
  const store = createDynamoConversationStore({ client, tableName: table.tableName, ttlDays: 1 });
  const fixture = agentFixture(script, { store, gateway, yaml, ...(now ? { now } : {}) });
  const handle = createHttpHandler({ agent: fixture.agent, logger: silentLogger, maxBodyBytes: 65_536 });
  const post = async (conversationId: string, body: Record<string, unknown>) => {
    const response = await handle({ method: 'POST', path: `/conversations/${conversationId}/messages`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) as Record<string, any> };
  };
  const turns = async (conversationId: string) => (await store.readAll({ conversationId })).map((record) => ({ turn: record.turn, status: record.status, messages: record.messages() }));
  return { ...fixture, post, turns };
}

/**
 * True with the given probability, from a fixed seed (mulberry32): the same answers lost on every
 * run, spread over the writes of a turn as real losses are, not always the same one of them.
 */
function seededChance(probability: number, seed: number): () => boolean {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296 < probability;
  };
}

/** The wire body's Item.status: 'pending' (a claim or a round record), 'paused' or 'complete'. */
const itemStatus = (status: string) => (body: Record<string, unknown>) => (body.Item as { status?: { S?: string } } | undefined)?.status?.S === status;
const creates = (body: Record<string, unknown>) => String(body.ConditionExpression ?? '').startsWith('attribute_not_exists');

describe('the conversation store under faults', () => {
  it('takes a claim whose answer was lost as its own: 200, one turn, the conversation free', async () => {
    const { post, turns, model } = service([textReply('one'), textReply('two')]);
    const conversationId = `c-${randomUUID()}`;
    const fault = proxy.inject({ operation: 'PutItem', when: creates, kind: 'lose-response' });

    const first = await post(conversationId, { message: 'hello' });

    expect(fault.applied).toBe(1);
    expect(first).toMatchObject({ status: 200, body: { turn: 1, reply: 'one' } });
    expect(await post(conversationId, { message: 'again' })).toMatchObject({ status: 200, body: { turn: 2 } });
    expect((await turns(conversationId)).map((turn) => [turn.turn, turn.status])).toEqual([[1, 'complete'], [2, 'complete']]);
    expect(model!.requests).toHaveLength(2);
  });

  it('takes a completion whose answer was lost as stored: 200, no second run of the tools', async () => {
    const { post, turns, gateway } = service([toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }]), textReply('已取消')]);
    const conversationId = `c-${randomUUID()}`;
    const fault = proxy.inject({ operation: 'PutItem', when: itemStatus('complete'), kind: 'lose-response', how: 'reset' });

    const response = await post(conversationId, { message: '取消 ORD1' });

    expect(fault.applied).toBe(1);
    expect(response).toMatchObject({ status: 200, body: { turn: 1, stopReason: 'completed', reply: '已取消' } });
    expect(gateway.calls).toHaveLength(1);
    const stored = await turns(conversationId);
    expect(stored.map((turn) => [turn.turn, turn.status])).toEqual([[1, 'complete']]);
    expect(historyViolations(stored[0]!.messages)).toEqual([]);
  });

  it('waits out a few seconds of throttling and stores the turn', async () => {
    // The client backs off up to a second, then two, then four between throttled attempts (full
    // jitter): the turn has 30 s, as turns do, and so has the wait for the store before anything ran,
    // whose default (conversation.unavailableWaitSeconds, 5 s) an unlucky draw of the backoff passes.
    const patient = YAML.replace('timeoutSeconds: 4', 'timeoutSeconds: 30').replace('connectTimeoutSeconds: 0.5 }', 'connectTimeoutSeconds: 0.5, unavailableWaitSeconds: 30 }');
    const { post, turns } = service([textReply('patient')], testGateway(), patient);
    const conversationId = `c-${randomUUID()}`;
    proxy.inject({ operation: 'PutItem', kind: 'throttle', forMs: 1_500 });

    const response = await post(conversationId, { message: 'hello' });

    expect(response).toMatchObject({ status: 200, body: { reply: 'patient' } });
    expect((await turns(conversationId)).map((turn) => turn.status)).toEqual(['complete']);
  });

  it.each([
    ['never answers a request once', { kind: 'hang' as const }],
    ['resets a connection once', { kind: 'reset' as const }],
  ])('tries again when DynamoDB %s, within the request timeout', async (_, fault) => {
    const { post, turns } = service([textReply('fine')]);
    const conversationId = `c-${randomUUID()}`;
    for (const operation of ['Query', 'PutItem']) proxy.inject({ operation, ...fault });

    const response = await post(conversationId, { message: 'hello' });

    expect(response).toMatchObject({ status: 200, body: { reply: 'fine' } });
    expect((await turns(conversationId)).map((turn) => turn.status)).toEqual(['complete']);
  });

  it('answers 503 store_unavailable, nothing run, when DynamoDB never answers at all; the conversation stays free', async () => {
    const { post, model } = service([textReply('late')]);
    const conversationId = `c-${randomUUID()}`;
    proxy.inject({ operation: 'Query', kind: 'hang', times: 100 });

    const started = Date.now();
    const response = await post(conversationId, { message: 'hello' });

    expect(response).toMatchObject({ status: 503, body: { error: { code: 'store_unavailable', message: expect.stringMatching(/no tool ran/) } } });
    // Bounded by the request timeout and the client's attempts, not by the process's life.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(model!.requests).toHaveLength(0);
    proxy.clear();
    expect(await post(conversationId, { message: 'hello' })).toMatchObject({ status: 200 });
  });

  it('answers 503 store_unavailable with Retry-After within a few seconds when the store hangs before anything ran, however long the turn may take', { timeout: 60_000 }, async () => {
    const { post, model } = service([textReply('late')], testGateway(), LONG_TURN);
    const conversationId = `c-${randomUUID()}`;
    proxy.inject({ operation: 'Query', kind: 'hang', times: 1_000 });

    const started = Date.now();
    const response = await post(conversationId, { message: 'hello' });

    expect(response).toMatchObject({ status: 503, body: { error: { code: 'store_unavailable', message: expect.stringMatching(/no tool ran/) } } });
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // conversation.unavailableWaitSeconds (5 s by default), not the turn's 40 s.
    expect(Date.now() - started).toBeLessThan(9_000);
    expect(model!.requests).toHaveLength(0);
  });

  it('answers 503 store_unavailable within a few seconds when the store stops after the model answered and no tool ran; a retry of the same requestId then carries the question out', { timeout: 60_000 }, async () => {
    let skewMs = 0;
    const { post, turns, model } = service([textReply('lost answer'), textReply('second try')], testGateway(), LONG_TURN, () => Date.now() + skewMs);
    const conversationId = `c-${randomUUID()}`;
    // The claim is written; its completion and its giving back never are.
    proxy.inject({ operation: 'PutItem', when: itemStatus('complete'), kind: 'hang', times: 1_000 });
    proxy.inject({ operation: 'DeleteItem', kind: 'hang', times: 1_000 });

    const started = Date.now();
    const failed = await post(conversationId, { message: 'hello', requestId: 'r-kept' });

    expect(failed).toMatchObject({ status: 503, body: { error: { code: 'store_unavailable', message: expect.stringMatching(/no tool ran/) } } });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect((await turns(conversationId)).map((turn) => turn.status)).toEqual(['running']);

    // The store is back. The claim that did nothing holds its lease: the same request is told to wait for it ...
    proxy.clear();
    const waiting = await post(conversationId, { message: 'hello', requestId: 'r-kept' });
    expect(waiting).toMatchObject({ status: 409, body: { error: { code: 'turn_in_progress' } } });
    // ... and once it has run out, the question is carried out under that requestId, not reported interrupted.
    skewMs = Number(waiting.headers['retry-after']) * 1000 + 1_000;
    const retried = await post(conversationId, { message: 'hello', requestId: 'r-kept' });
    expect(retried).toMatchObject({ status: 200, body: { turn: 1, stopReason: 'completed', reply: 'second try' } });
    expect(model!.requests).toHaveLength(2);
    const stored = await turns(conversationId);
    expect(stored.map((turn) => [turn.turn, turn.status])).toEqual([[1, 'complete']]);
    expect(stored[0]!.messages).toEqual([{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'second try', toolCalls: [] }]);
    expect(await post(conversationId, { message: 'hello', requestId: 'r-kept' })).toMatchObject({ status: 200, body: { reply: 'second try' } });
  });

  it('says exactly which tools ran when the turn cannot be stored after them, and shows it as interrupted once its lease ends', async () => {
    let storeDown = () => {};
    const gateway = testGateway([
      weatherTool(),
      cancelTool((args) => {
        // The store fails from the moment the order is cancelled: no record after, no completion.
        storeDown();
        return { ok: true, text: JSON.stringify({ success: args.orderNos }) };
      }),
    ]);
    const { post, turns } = service([toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD9'] } }]), textReply('已取消'), textReply('ORD9 的结果未知，请先确认。')], gateway);
    const conversationId = `c-${randomUUID()}`;
    storeDown = () => void proxy.inject({ operation: 'PutItem', kind: 'throttle', forMs: 60_000 });

    const failed = await post(conversationId, { message: '取消 ORD9' });

    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('turn_not_stored');
    // Tools ran: sending the question again would run them again.
    expect(failed.headers['x-should-retry']).toBe('false');
    expect(failed.body.error.message).toMatch(/Tools ran in turn 1 \(batchCancelOrdersByOrderNo \(c1\)\)/);
    expect(failed.body.error.message).toMatch(/will show turn 1 as interrupted/);
    expect(failed.body.error.message).not.toMatch(/nothing was lost/i);
    // The record made before the call is there: the call, without its result.
    expect((await turns(conversationId)).map((turn) => [turn.status, turn.messages.length])).toEqual([['running', 2]]);

    proxy.clear();
    const busy = await post(conversationId, { message: '结果呢?' });
    expect(busy.status).toBe(409);
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, Number(busy.headers['retry-after']) * 1000 + 200));

    const next = await post(conversationId, { message: '结果呢?' });
    expect(next).toMatchObject({ status: 200, body: { turn: 2 } });
    const stored = await turns(conversationId);
    expect(stored.map((turn) => turn.status)).toEqual(['complete', 'complete']);
    expect(stored[0]!.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1', content: expect.stringMatching(/outcome is unknown/) });
    expect(historyViolations(stored.flatMap((turn) => turn.messages))).toEqual([]);
  });

  it('stores every turn whole while one write answer in five is lost: no turn ends in error after its tool ran', { timeout: 120_000 }, async () => {
    // Each turn cancels an order: its claim, the round record before and after the call, and its
    // completion are written; one write answer in five (at random, from a fixed seed) is lost after the write happened, as
    // DynamoDB's 500 after a committed write. Enough turns that the SDK's retry quota would run dry
    // if the lost answers drained it.
    const TURNS = 100;
    const script: ScriptedStep[] = Array.from({ length: TURNS }, (_, index) => [
      toolCallsReply([{ id: `c${index}`, name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: [`ORD${index}`] } }]),
      textReply(`已取消 ORD${index}`),
    ]).flat();
    const { post, gateway } = service(script, testGateway(), YAML.replace('timeoutSeconds: 4', 'timeoutSeconds: 30'));
    const lost = seededChance(0.2, 16);
    const fault = proxy.inject({ operation: 'PutItem', when: lost, times: Number.POSITIVE_INFINITY, kind: 'lose-response' });

    const stopReasons: string[] = [];
    for (let index = 0; index < TURNS; index++) {
      const response = await post(`c-${randomUUID()}`, { message: `取消 ORD${index}` });
      stopReasons.push(`${response.status} ${response.body.stopReason ?? response.body.error?.code}`);
    }

    expect(fault.applied).toBeGreaterThanOrEqual(TURNS * 4 / 5);
    expect(stopReasons.filter((outcome) => outcome !== '200 completed')).toEqual([]);
    expect(gateway.calls).toHaveLength(TURNS);
  });

  it('retries the round record after a call as it retries the claim and the completion: a throttled moment ends nothing', async () => {
    let throttle = () => {};
    const gateway = testGateway([
      weatherTool(),
      cancelTool((args) => {
        // The record of the call's result meets more throttling than the SDK's own attempts cover.
        throttle();
        return { ok: true, text: JSON.stringify({ success: args.orderNos }) };
      }),
    ]);
    const { post, turns } = service([toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD5'] } }]), textReply('已取消')], gateway, YAML.replace('timeoutSeconds: 4', 'timeoutSeconds: 30'));
    const conversationId = `c-${randomUUID()}`;
    let fault: { applied: number } | undefined;
    throttle = () => void (fault = proxy.inject({ operation: 'PutItem', when: itemStatus('pending'), kind: 'throttle', times: 5 }));

    const response = await post(conversationId, { message: '取消 ORD5' });

    expect(fault?.applied).toBe(5);
    expect(response).toMatchObject({ status: 200, body: { stopReason: 'completed', reply: '已取消' } });
    expect((await turns(conversationId)).map((turn) => turn.status)).toEqual(['complete']);
  });

  it.each(['lean', 'sdk'] as const)('keeps retrying writes whose answers were lost however many were lost before: the read-back that finds them refunds the retry (%s client)', async (kind) => {
    const store = createDynamoConversationStore({ client: storeClient(kind), tableName: table.tableName, ttlDays: 1 });
    const key = { conversationId: `c-${randomUUID()}` };
    const claim = (turn: number) => ({ status: 'running' as const, claimId: `claim-${turn}`, requestIds: [`r-${turn}`], createdAt: new Date().toISOString(), leaseExpiresAt: Date.now() + 60_000, messages: [{ role: 'user' as const, content: 'hi' }], result: { rounds: 0, toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 } }, state: {} });
    // Each claim's first answer is lost: the SDK retries it, the retry fails its condition on the
    // item the first attempt wrote, and the read-back finds it. The SDK's retry quota (500, 14 a
    // retry) would be spent after about 36 of these if each kept its cost.
    let puts = 0;
    const fault = proxy.inject({ operation: 'PutItem', when: () => puts++ % 2 === 0, kind: 'lose-response', times: 60 });
    for (let turn = 1; turn <= 60; turn++) await store.create(key, turn, claim(turn));
    expect(fault.applied).toBe(60);
    expect(proxy.log.entries.filter((entry) => entry.operation === 'PutItem')).toHaveLength(120);

    proxy.inject({ operation: 'PutItem', kind: 'lose-response' });
    await expect(store.create(key, 61, claim(61))).resolves.toBeUndefined();
  });

  it('gives the same requestId racing itself turn_in_progress, not conversation_busy', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { post } = service([async () => { await gate; return textReply('once'); }]);
    const conversationId = `c-${randomUUID()}`;
    const first = post(conversationId, { message: 'hello', requestId: 'same-request' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await post(conversationId, { message: 'hello', requestId: 'same-request' });
    expect(second).toMatchObject({ status: 409, body: { error: { code: 'turn_in_progress' } } });
    release();
    expect(await first).toMatchObject({ status: 200 });
  });
});
