import type { Logger } from '../core/logger.ts';
import type { ModelClient } from '../core/ports/model.ts';
import type { ToolGateway, ToolServerStatus } from '../core/ports/tools.ts';
import type { OfferedTool } from './loop/tool-policy.ts';

/**
 * A server as any authenticated caller may see it: its status and tools, never why it failed (an
 * upstream's error body may carry tokens, hosts, stack traces). That goes to the log.
 */
interface ServerHealth extends Omit<ToolServerStatus, 'error'> {
  /** The tools offered to the model (after allowTools / denyTools), and which need approval. */
  tools: Array<{ name: string; needsApproval: boolean }>;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  /** Whether a model is configured, its provider and name (not where it lives: an internal host is nobody's business); `offlineStandIn` only for the offline demo model. */
  model: { configured: boolean; name: string; provider?: string; offlineStandIn?: true };
  /** Tools offered to the model, over all servers. */
  tools: number;
  mcpServers: ServerHealth[];
  /** The tool policy in force (agent.yml toolPolicy): its engine, the SHA-256 of its files, and how many policies it has. */
  toolPolicy?: { engine: string; hash: string; policies: number };
}

interface HealthSources {
  gateway: ToolGateway;
  model: ModelClient | undefined;
  modelConfig: { name: string; provider?: string; offlineStandIn?: boolean };
  offeredTools(): Promise<OfferedTool[]>;
  logger: Logger;
  toolPolicy?: HealthReport['toolPolicy'];
}

export async function healthReport(sources: HealthSources): Promise<HealthReport> {
  const offered = await sources.offeredTools();
  const servers = await sources.gateway.status();
  const mcpServers = servers.map(({ error, ...server }): ServerHealth => {
    if (error !== undefined) sources.logger.warn('health: mcp server unavailable', { server: server.name, transport: server.transport, error });
    const tools = offered.filter((tool) => tool.server === server.name).map((tool) => ({ name: tool.name, needsApproval: tool.needsApproval }));
    return { ...server, toolCount: tools.length, tools };
  });
  return {
    status: servers.every((server) => server.status === 'connected') && sources.model ? 'ok' : 'degraded',
    model: {
      configured: Boolean(sources.model),
      name: sources.modelConfig.name,
      ...(sources.modelConfig.provider ? { provider: sources.modelConfig.provider } : {}),
      ...(sources.modelConfig.offlineStandIn ? { offlineStandIn: true as const } : {}),
    },
    tools: offered.length,
    mcpServers,
    ...(sources.toolPolicy ? { toolPolicy: sources.toolPolicy } : {}),
  };
}
