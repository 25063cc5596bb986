/**
 * Everything telemetry adds to an agent, from one Telemetry (the port): the extension that opens
 * the model and tool spans, the turn's span around the agent, and the store-write spans. build-agent
 * applies it; without it the agent has none of it, not even a no-op.
 */
import type { ConversationStore } from '../../core/ports/conversation-store.ts';
import type { Telemetry } from '../../core/ports/telemetry.ts';
import type { Agent } from '../../agent/agent-api.ts';
import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import { telemetryExtension } from './extension.ts';
import type { ModelIdentity } from './model-attributes.ts';
import { tracedAgent } from './traced-agent.ts';
import { tracedStore, type StoreIdentity } from './traced-store.ts';

export interface AgentInstrumentation {
  extension: AgentExtension;
  agent(agent: Agent): Agent;
  store(store: ConversationStore, identity: StoreIdentity): ConversationStore;
  /** Sends what is buffered and stops the exporters (a local server's shutdown). */
  shutdown(): Promise<void>;
}

export interface InstrumentationSettings {
  agentName: string;
  model: ModelIdentity;
  captureContent: boolean;
}

export function instrumentation(telemetry: Telemetry, settings: InstrumentationSettings): AgentInstrumentation {
  return {
    extension: telemetryExtension(telemetry, { model: settings.model, captureContent: settings.captureContent }),
    agent: (agent) => tracedAgent(agent, telemetry, { agentName: settings.agentName, model: settings.model }),
    store: (store, identity) => tracedStore(store, telemetry.tracer, identity),
    shutdown: () => telemetry.shutdown(),
  };
}
