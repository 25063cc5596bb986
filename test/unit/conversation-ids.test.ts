/**
 * A conversation id derived from a requestId (so a retried "start a conversation" finds its turn)
 * must not be computable by whoever knows or guesses the requestId: with authMode none, the id is
 * all that guards a conversation.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newConversationId } from '../../lib/agent/turn/new-conversation.ts';
import { textReply } from '../../lib/testing/scripted-model.ts';
import { createHttpHandler } from '../../lib/front-doors/handlers.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { agentFixture } from '../support/agent-fixture.ts';

/** What anyone could compute before: a plain hash of the requestId. */
function plainHashId(requestId: string, owner = ''): string {
  const hex = createHash('sha256').update(`${owner}\n${requestId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const post = (body: unknown) => ({ method: 'POST', path: '/conversations', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const get = (path: string) => ({ method: 'GET', path, headers: {}, body: undefined });

describe('a conversation id derived from a requestId', () => {
  it('cannot be computed from the requestId: an outsider who guesses it reads nothing (authMode none)', async () => {
    const { agent } = agentFixture([textReply('你的订单 ORD20250514118567 已取消')]);
    const handle = createHttpHandler({ agent, logger: silentLogger, maxBodyBytes: 65_536 });

    const created = JSON.parse((await handle(post({ message: '取消我的订单', requestId: 'checkout-1001' }))).body);
    const guessed = await handle(get(`/conversations/${plainHashId('checkout-1001')}`));

    expect(created.conversationId).not.toBe(plainHashId('checkout-1001'));
    expect(guessed.statusCode).toBe(404);
  });

  it('is the same for a retry (the same key), so the retry gets the stored turn', () => {
    const key = randomBytes(32);
    expect(newConversationId('checkout-1001', undefined, key)).toBe(newConversationId('checkout-1001', undefined, key));
    expect(newConversationId('checkout-1001', undefined, key)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('differs between deployments (keys) and between owners', () => {
    const key = randomBytes(32);
    expect(newConversationId('checkout-1001', undefined, key)).not.toBe(newConversationId('checkout-1001', undefined, randomBytes(32)));
    expect(newConversationId('checkout-1001', 'ada', key)).not.toBe(newConversationId('checkout-1001', 'bob', key));
    // An owner and requestId that run together differently never derive the same id.
    expect(newConversationId('b', 'a\n', key)).not.toBe(newConversationId('\nb', 'a', key));
  });

  it('is random without a requestId', () => {
    const key = randomBytes(32);
    expect(newConversationId(undefined, undefined, key)).not.toBe(newConversationId(undefined, undefined, key));
  });

  it('is derived with the key the agent was given, so agents sharing a deployment key agree', async () => {
    const key = randomBytes(32);
    const first = agentFixture([textReply('一')], { hmacKey: key });
    const second = agentFixture([textReply('二')], { hmacKey: key, store: first.store });

    const asked = await first.agent.ask({ message: '你好', requestId: 'shared-1' });
    const retried = await second.agent.ask({ message: '你好', requestId: 'shared-1' });

    expect(retried).toEqual(asked);
    expect(second.model!.requests).toHaveLength(0);
  });
});
