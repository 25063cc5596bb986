/**
 * GET /conversations/{id}?limit=N&nextToken=… reads a long conversation page by page, oldest turn
 * first, instead of reading and decompressing every turn in one response. The token is opaque and
 * bound to the conversation and its owner: it reads nothing else.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/core/logger.ts';
import { createHttpHandler } from '../../lib/front-doors/handlers.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { textReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

const TURNS = 5;
const HMAC_KEY = randomBytes(32);

function read(conversationId: string, query: Record<string, string> = {}, owner?: string): HttpRequest {
  return { method: 'GET', path: `/conversations/${conversationId}`, query, headers: {}, body: undefined, ...(owner ? { owner } : {}) };
}

describe('reading a conversation page by page', () => {
  let fixture: ReturnType<typeof agentFixture>;
  let handle: ReturnType<typeof createHttpHandler>;

  beforeEach(async () => {
    fixture = agentFixture(Array.from({ length: 2 * TURNS + 1 }, (_, index) => textReply(`答 ${index + 1}`)), { hmacKey: HMAC_KEY });
    handle = createHttpHandler({ agent: fixture.agent, logger: silentLogger, maxBodyBytes: 65_536 });
    for (let turn = 1; turn <= TURNS; turn += 1) await fixture.agent.ask({ conversationId: 'long', message: `问 ${turn}`, owner: 'ada' });
    for (let turn = 1; turn <= TURNS; turn += 1) await fixture.agent.ask({ conversationId: 'long', message: `问 ${turn}`, owner: 'bob' });
  });

  const body = async (request: HttpRequest) => {
    const response = await handle(request);
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };
  const turnsOf = (view: { turns: Array<{ turn: number }> }) => view.turns.map((turn) => turn.turn);

  it('pages oldest first, with a nextToken while turns remain', async () => {
    const first = await body(read('long', { limit: '2' }, 'ada'));
    const second = await body(read('long', { limit: '2', nextToken: first.body.nextToken }, 'ada'));
    const last = await body(read('long', { limit: '2', nextToken: second.body.nextToken }, 'ada'));

    expect([first.status, turnsOf(first.body)]).toEqual([200, [1, 2]]);
    expect([second.status, turnsOf(second.body)]).toEqual([200, [3, 4]]);
    expect([last.status, turnsOf(last.body)]).toEqual([200, [5]]);
    expect(last.body).not.toHaveProperty('nextToken');
    expect(first.body.nextToken).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.body.turns[0]).toMatchObject({ turn: 1, stopReason: 'completed', messages: [{ role: 'user', content: '问 1' }, { role: 'assistant', content: '答 1' }] });
  });

  it('reads a page of at most 20 turns without a limit, and ends without a token', async () => {
    const whole = await body(read('long', {}, 'ada'));
    expect(turnsOf(whole.body)).toEqual([1, 2, 3, 4, 5]);
    expect(whole.body).not.toHaveProperty('nextToken');
  });

  it('refuses a token of another owner\'s conversation of the same id, and of another conversation', async () => {
    await fixture.agent.ask({ conversationId: 'other', message: '问', owner: 'ada' });
    const adasToken = (await body(read('long', { limit: '1' }, 'ada'))).body.nextToken;

    expect(await body(read('long', { limit: '1', nextToken: adasToken }, 'bob'))).toMatchObject({ status: 400, body: { error: { code: 'invalid_page_token' } } });
    expect(await body(read('other', { limit: '1', nextToken: adasToken }, 'ada'))).toMatchObject({ status: 400, body: { error: { code: 'invalid_page_token' } } });
  });

  it('refuses a token changed by hand, and one from another deployment', async () => {
    const token: string = (await body(read('long', { limit: '1' }, 'ada'))).body.nextToken;
    const flipped = token.slice(0, 3) + (token[3] === 'A' ? 'B' : 'A') + token.slice(4);
    const elsewhere = agentFixture([], { hmacKey: randomBytes(32), store: fixture.store });
    const elsewhereToken = (await elsewhere.agent.getConversation({ conversationId: 'long', owner: 'ada' }, { limit: 1 })).nextToken!;

    for (const nextToken of [flipped, elsewhereToken, 'not a token', '', token + 'A']) {
      expect(await body(read('long', { limit: '1', nextToken }, 'ada'))).toMatchObject({ status: 400, body: { error: { code: 'invalid_page_token' } } });
    }
  });

  it.each(['0', '101', '-1', '2.5', 'ten', '', '1e2'])('refuses limit=%s with 400 invalid_limit', async (limit) => {
    expect(await body(read('long', { limit }, 'ada'))).toMatchObject({ status: 400, body: { error: { code: 'invalid_limit', message: expect.stringMatching(/1 to 100/) } } });
  });

  it('refuses an unknown query parameter, naming it', async () => {
    expect(await body(read('long', { limt: '2' }, 'ada'))).toMatchObject({ status: 400, body: { error: { code: 'unknown_query_parameter', message: expect.stringContaining('"limt"') } } });
  });

  it('answers 404 for a conversation with no turns, whatever the page', async () => {
    expect(await body(read('missing', { limit: '2' }, 'ada'))).toMatchObject({ status: 404, body: { error: { code: 'conversation_not_found' } } });
  });
});
