import type { ModelClient, ToolGateway, ToolServerStatus } from '../core/ports.ts';
import type { AgentConfig } from '../config/load.ts';
import type { OfferedTool } from './tool-policy.ts';

export interface ServerHealth extends ToolServerStatus {
  /** The tools offered to the model (after allowTools / denyTools), and which need approval. */
  tools: Array<{ name: string; needsApproval: boolean }>;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  /** `offlineStandIn` only for the offline demo model (name `demo`), which calls no endpoint. */
  model: { configured: boolean; name: string; baseURL: string; offlineStandIn?: true };
  /** Tools offered to the model, over all servers. */
  tools: number;
  mcpServers: ServerHealth[];
}

export interface HealthSources {
  gateway: ToolGateway;
  model: ModelClient | undefined;
  modelConfig: Pick<AgentConfig['model'], 'name' | 'baseURL'> & Partial<Pick<AgentConfig['model'], 'offlineStandIn'>>;
  offeredTools(): Promise<OfferedTool[]>;
}

export async function healthReport(sources: HealthSources): Promise<HealthReport> {
  const offered = await sources.offeredTools();
  const servers = await sources.gateway.status();
  const mcpServers = servers.map((server) => {
    const tools = offered.filter((tool) => tool.server === server.name).map((tool) => ({ name: tool.name, needsApproval: tool.needsApproval }));
    return { ...server, toolCount: tools.length, tools };
  });
  return {
    status: servers.every((server) => server.status === 'connected') && sources.model ? 'ok' : 'degraded',
    model: {
      configured: Boolean(sources.model),
      name: sources.modelConfig.name,
      baseURL: sources.modelConfig.baseURL,
      ...(sources.modelConfig.offlineStandIn ? { offlineStandIn: true as const } : {}),
    },
    tools: offered.length,
    mcpServers,
  };
}
