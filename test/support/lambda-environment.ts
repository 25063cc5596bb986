/**
 * The environment a Lambda entry (functions/*.ts) reads at import, pointed at local parts: an
 * agent.yml in a temporary folder with the demo MCP server, the scripted model server and dynalite.
 * Set it before `await import('../../functions/...')`; `restore()` removes it and the folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { connectionEnvironment, type DynamoConnection } from '../../lib/local/dynamo-connection.ts';

export const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));

export interface LambdaEnvironmentOptions {
  /** agent.yml lines before `mcpServers` (the demo server is always configured). */
  agentYml?: string[];
  modelBaseURL: string;
  /** A LocalTable: its clients' region and keys are the handler's too. */
  table: { tableName: string; connection: DynamoConnection };
  /** More variables, e.g. AUTH_MODE or EVENT_BUS_NAME. */
  variables?: Record<string, string>;
}

export function stubLambdaEnvironment(options: LambdaEnvironmentOptions): { folder: string; restore(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'lambda-env-'));
  const agentYml = join(folder, 'agent.yml');
  writeFileSync(agentYml, [...(options.agentYml ?? []), 'mcpServers:', `  demo: { command: node, args: [${JSON.stringify(DEMO_SERVER)}] }`, ''].join('\n'));
  const variables: Record<string, string> = {
    AGENT_CONFIG: agentYml,
    OPENAI_BASE_URL: options.modelBaseURL,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_API_KEY_SECRET_ARN: '',
    OPENAI_API_KEY_PARAMETER_NAME: '',
    AUTH_MODE: '',
    CONVERSATIONS_TABLE: options.table.tableName,
    ...connectionEnvironment(options.table.connection),
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_TRACE_ENABLED: 'false',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    ...options.variables,
  };
  for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value);
  return {
    folder,
    restore() {
      vi.unstubAllEnvs();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
