import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ConversationStore } from '../../lib/core/ports/conversation-store.ts';
import type { ModelClient } from '../../lib/core/ports/model.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { createFakeGateway, type FakeTool } from '../../lib/testing/fake-gateway.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createScriptedModel, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { batchCancelOrdersByOrderNo, getWeather } from './original-tools.ts';

/** The two original tools the fixtures use, annotated as the demo server annotates them. */
export const weatherTool = (run: FakeTool['run'] = (args) => ({ ok: true, text: JSON.stringify({ city: args.city, condition: '晴' }) })): FakeTool => ({
  definition: { ...getWeather, server: 'fake', annotations: { readOnlyHint: true } },
  run,
});
export const cancelTool = (run: FakeTool['run'] = (args) => ({ ok: true, text: JSON.stringify({ success: args.orderNos }) })): FakeTool => ({
  definition: { ...batchCancelOrdersByOrderNo, server: 'fake', annotations: { readOnlyHint: false, destructiveHint: true } },
  run,
});

export const testGateway = (tools: FakeTool[] = [weatherTool(), cancelTool()]) => createFakeGateway(tools);

export interface FixtureOptions<Gateway extends ToolGateway> {
  yaml?: string;
  store?: ConversationStore;
  gateway?: Gateway;
  now?: () => number;
  hmacKey?: Uint8Array;
}

/** An agent over fakes: a scripted model, an in-memory store and two of the original tools. */
export function agentFixture<Gateway extends ToolGateway = ReturnType<typeof testGateway>>(script: ScriptedStep[] | null, options: FixtureOptions<Gateway> = {}) {
  const config = parseConfig(options.yaml ?? 'maxRounds: 4', { source: 'test.yml', environment: {} });
  const model: (ModelClient & { requests: ReturnType<typeof createScriptedModel>['requests'] }) | undefined = script ? createScriptedModel(script) : undefined;
  const store = options.store ?? createMemoryConversationStore();
  const gateway = (options.gateway ?? testGateway()) as Gateway;
  const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model, gateway, store, logger: silentLogger, ...(options.now ? { now: options.now } : {}), ...(options.hmacKey ? { hmacKey: options.hmacKey } : {}) });
  return { agent, model, store, gateway, config };
}
