import { createAgent } from '../../lib/agent/agent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ConversationStore, ModelClient, ToolGateway } from '../../lib/core/ports.ts';
import { createFakeGateway } from '../../lib/testing/fake-gateway.ts';
import { createMemoryConversationStore } from '../../lib/testing/memory-store.ts';
import { createScriptedModel, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { batchCancelOrdersByOrderNo, getWeather } from './original-tools.ts';

export const testGateway = () =>
  createFakeGateway([
    { definition: getWeather, run: (args) => ({ ok: true, text: JSON.stringify({ city: args.city, condition: '晴' }) }) },
    { definition: batchCancelOrdersByOrderNo, run: (args) => ({ ok: true, text: JSON.stringify({ success: args.orderNos }) }) },
  ]);

/** An agent over fakes: a scripted model, an in-memory store and two of the original tools. */
export function agentFixture(script: ScriptedStep[] | null, options: { yaml?: string; store?: ConversationStore; gateway?: ToolGateway } = {}) {
  const config = parseConfig(options.yaml ?? 'maxRounds: 4', { source: 'test.yml', environment: {} });
  const model: (ModelClient & { requests: ReturnType<typeof createScriptedModel>['requests'] }) | undefined = script ? createScriptedModel(script) : undefined;
  const store = options.store ?? createMemoryConversationStore();
  const gateway = options.gateway ?? testGateway();
  const agent = createAgent(config, { model, gateway, store, logger: silentLogger });
  return { agent, model, store, gateway, config };
}
