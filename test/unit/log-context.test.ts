import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/agent/agent.ts';
import { contextualLogger, withLogContext, withoutLogContext } from '../../lib/core/log-context.ts';
import type { LogFields, Logger } from '../../lib/core/logger.ts';
import type { ModelClient } from '../../lib/core/ports.ts';
import { textReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

function recorder(): Logger & { lines: Array<{ message: string; fields?: LogFields }> } {
  const lines: Array<{ message: string; fields?: LogFields }> = [];
  const record = (message: string, fields?: LogFields) => lines.push(fields === undefined ? { message } : { message, fields });
  return { lines, debug: record, info: record, warn: record, error: record };
}

describe('contextualLogger', () => {
  it('adds the context of the current call chain, and keeps concurrent chains apart', async () => {
    const sink = recorder();
    const logger = contextualLogger(sink);
    const work = (id: string) => withLogContext({ conversationId: id }, async () => {
      await new Promise((resolve) => setTimeout(resolve, id === 'a' ? 10 : 1));
      logger.info('step', { extra: id });
    });
    await Promise.all([work('a'), work('b')]);
    logger.info('outside');
    expect(sink.lines).toEqual([
      { message: 'step', fields: { conversationId: 'b', extra: 'b' } },
      { message: 'step', fields: { conversationId: 'a', extra: 'a' } },
      { message: 'outside' },
    ]);
  });

  it('drops the context for work that outlives it', () => {
    const sink = recorder();
    const logger = contextualLogger(sink);
    withLogContext({ conversationId: 'a' }, () => withoutLogContext(() => logger.info('server stderr')));
    expect(sink.lines).toEqual([{ message: 'server stderr' }]);
  });
});

describe('agent turn logs', () => {
  it('carry the conversation and request ids on lines the adapters write during the turn', async () => {
    const sink = recorder();
    const logger = contextualLogger(sink);
    const model: ModelClient = {
      async complete() {
        logger.warn('model-call-failed-once');
        return textReply('ok');
      },
    };
    const fixture = agentFixture([]);
    const agent = createAgent(fixture.config, { ownerCounters: createMemoryOwnerCounters(), model, gateway: fixture.gateway, store: fixture.store, logger });
    await agent.ask({ conversationId: 'conv-7', requestId: 'req-7', message: 'hi' });
    expect(sink.lines.find((line) => line.message === 'model-call-failed-once')?.fields).toEqual({ conversationId: 'conv-7', requestId: 'req-7' });
  });
});
