/**
 * GET /conversations/{id}/turns/{turn}/trace: one turn's model calls, owner-scoped like every
 * conversation route, with the contract's 400 and 404.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/core/logger.ts';
import { createHttpHandler } from '../../lib/front-doors/handlers.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

const get = (path: string, owner?: string, query?: Record<string, string>): HttpRequest => ({ method: 'GET', path, headers: {}, body: undefined, ...(owner ? { owner } : {}), ...(query ? { query } : {}) });

async function setUp(yaml?: string) {
  const fixture = agentFixture([toolCallsReply([{ id: 'call_w', name: 'getWeather', arguments: { city: '上海' } }]), textReply('晴。')], yaml ? { yaml } : {});
  const handle = createHttpHandler({ agent: fixture.agent, logger: silentLogger, maxBodyBytes: 65_536 });
  await fixture.agent.ask({ conversationId: 'c1', owner: 'ada', message: '上海天气？' });
  return async (request: HttpRequest) => {
    const response = await handle(request);
    return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, any> };
  };
}

describe('GET /conversations/{id}/turns/{turn}/trace', () => {
  it('answers the turn\'s rounds, requests and replies in full', async () => {
    const call = await setUp();

    const { status, body } = await call(get('/conversations/c1/turns/1/trace', 'ada'));

    expect(status).toBe(200);
    expect(body).toMatchObject({ conversationId: 'c1', turn: 1 });
    expect(body.rounds).toHaveLength(2);
    expect(body.rounds[1].request.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_w', name: 'getWeather', content: '{"city":"上海","condition":"晴"}' });
    expect(body.rounds[1].response).toEqual({ role: 'assistant', content: '晴。' });
  });

  it.each([
    ['an unknown turn', '/conversations/c1/turns/2/trace', 'ada', 404, 'turn_not_found'],
    ['an unknown conversation', '/conversations/nope/turns/1/trace', 'ada', 404, 'conversation_not_found'],
    ['another owner\'s conversation', '/conversations/c1/turns/1/trace', 'bob', 404, 'conversation_not_found'],
    ['a turn that is not a number', '/conversations/c1/turns/first/trace', 'ada', 400, 'invalid_turn'],
    ['turn 0', '/conversations/c1/turns/0/trace', 'ada', 400, 'invalid_turn'],
  ])('answers %s with %i %s', async (_case, path, owner, status, code) => {
    const call = await setUp();
    const response = await call(get(path, owner));
    expect([response.status, response.body.error.code]).toEqual([status, code]);
  });

  it('refuses query parameters, and other methods with 405', async () => {
    const call = await setUp();
    expect((await call(get('/conversations/c1/turns/1/trace', 'ada', { limit: '1' }))).body.error.code).toBe('unknown_query_parameter');
    const deleted = await call({ ...get('/conversations/c1/turns/1/trace', 'ada'), method: 'DELETE' });
    expect([deleted.status, deleted.body.error.code]).toEqual([405, 'method_not_allowed']);
  });

  it('answers 404 trace_not_found when traces are off', async () => {
    const call = await setUp('trace: { enabled: false }');
    const response = await call(get('/conversations/c1/turns/1/trace', 'ada'));
    expect([response.status, response.body.error.code]).toEqual([404, 'trace_not_found']);
    expect(response.body.error.message).toMatch(/trace\.enabled/);
  });
});
