import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/create-agent.ts';
import { contextualLogger, withLogContext, withoutLogContext } from '../../lib/core/log-context.ts';
import type { ModelClient } from '../../lib/core/ports/model.ts';
import { textReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';
import { recordingLogger } from '../support/recording-logger.ts';

describe('contextualLogger', () => {
  it('adds the context of the current call chain, and keeps concurrent chains apart', async () => {
    const sink = recordingLogger();
    const logger = contextualLogger(sink);
    const work = (id: string) => withLogContext({ conversationId: id }, async () => {
      await new Promise((resolve) => setTimeout(resolve, id === 'a' ? 10 : 1));
      logger.info('step', { extra: id });
    });
    await Promise.all([work('a'), work('b')]);
    logger.info('outside');
    expect(sink.entries).toEqual([
      { level: 'info', message: 'step', fields: { conversationId: 'b', extra: 'b' } },
      { level: 'info', message: 'step', fields: { conversationId: 'a', extra: 'a' } },
      { level: 'info', message: 'outside' },
    ]);
  });

  it('drops the context for work that outlives it', () => {
    const sink = recordingLogger();
    const logger = contextualLogger(sink);
    withLogContext({ conversationId: 'a' }, () => withoutLogContext(() => logger.info('server stderr')));
    expect(sink.entries).toEqual([{ level: 'info', message: 'server stderr' }]);
  });
});

describe('agent turn logs', () => {
  it('carry the conversation and request ids on lines the adapters write during the turn', async () => {
    const sink = recordingLogger();
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
    expect(sink.entries.find((entry) => entry.message === 'model-call-failed-once')?.fields).toEqual({ conversationId: 'conv-7', requestId: 'req-7' });
  });
});
