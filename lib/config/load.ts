import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import type { McpServerSpec } from '../adapters/mcp/types.ts';
import { DEFAULTS } from '../core/defaults.ts';
import { ConfigError, errorMessage } from '../core/errors.ts';
import { interpolateEnvironment } from './interpolate.ts';
import { fileSchema, remoteServerSchema, stdioServerSchema, type AgentFile } from './schema.ts';
import { formatIssues } from './issues.ts';

export const OPENAI_DEFAULT_BASE_URL = DEFAULTS.model.baseURL;

export interface AgentConfig {
  /** The file this configuration was read from. */
  source: string;
  systemPrompt: string;
  maxRounds: number;
  model: {
    name: string;
    baseURL: string;
    apiKey: string;
    temperature: number;
    maxTokens?: number;
    timeoutMs: number;
    maxRetries: number;
    /** False when neither an API key nor a non-OpenAI endpoint is set: chat answers 503. */
    configured: boolean;
  };
  tools: {
    callTimeoutMs: number;
    maxOutputChars: number;
    catalogTtlMs: number;
    connectTimeoutMs: number;
    retryFailedAfterMs: number;
  };
  history: { maxTokens: number };
  conversation: { ttlDays: number; tableName: string };
  turn: { timeoutMs: number; reserveMs: number };
  http: { maxBodyBytes: number; maxMessageChars: number; heartbeatMs: number };
  logging: { level: 'debug' | 'info' | 'warn' | 'error'; logPayloads: boolean };
  mcpServers: McpServerSpec[];
}

export interface LoadConfigOptions {
  /** Defaults to `AGENT_CONFIG`, then `agent.yml` in the working directory. */
  path?: string;
  environment?: NodeJS.ProcessEnv;
}

/** Reads, interpolates and validates agent.yml once, before any side effect. Throws ConfigError. */
export function loadConfig(options: LoadConfigOptions = {}): AgentConfig {
  const environment = options.environment ?? process.env;
  const source = resolve(options.path ?? (environment.AGENT_CONFIG || 'agent.yml'));
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the agent configuration ${source}: ${errorMessage(error)} (set AGENT_CONFIG to another file)`, { cause: error });
  }
  return parseConfig(text, { source, environment });
}

/** Validates agent.yml text; `source` names the file in messages and anchors relative paths. */
export function parseConfig(text: string, options: { source: string; environment?: NodeJS.ProcessEnv }): AgentConfig {
  const environment = options.environment ?? process.env;
  let document: unknown;
  try {
    document = parseYaml(text) ?? {};
  } catch (error) {
    throw new ConfigError(`${options.source} is not valid YAML: ${errorMessage(error)}`, { cause: error });
  }
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw new ConfigError(`${options.source} must be a YAML mapping of keys (systemPrompt, maxRounds, model, mcpServers, ...)`);
  }
  let interpolated: unknown;
  try {
    interpolated = interpolateEnvironment(document, environment);
  } catch (error) {
    throw new ConfigError(`${options.source} is invalid:\n  - ${errorMessage(error)}`, { cause: error });
  }
  const file = check(fileSchema, interpolated, '', options.source);
  const servers = Object.entries(file.mcpServers).map(([name, entry]) => serverSpec(name, entry, options.source));
  return toConfig(file, servers, options.source, environment);
}

function serverSpec(name: string, entry: unknown, source: string): McpServerSpec {
  const path = `mcpServers.${name}`;
  const fields = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>) : {};
  const anchor = dirname(source);
  if ('command' in fields || fields.type === 'stdio') {
    const server = check(stdioServerSchema, entry, path, source);
    // A relative working directory is relative to agent.yml, and so are relative script paths by default.
    return { name, type: 'stdio', command: server.command, args: server.args, env: server.env, cwd: resolve(anchor, server.cwd ?? '.') };
  }
  if ('url' in fields) {
    const server = check(remoteServerSchema, entry, path, source);
    return { name, type: server.type ?? 'auto', url: server.url, headers: server.headers };
  }
  throw new ConfigError(
    `${source} is invalid:\n  - ${path}: give either "command" (a stdio server) or "url" (a Streamable HTTP or SSE server)`,
  );
}

function check<Schema extends z.ZodType>(schema: Schema, value: unknown, path: string, source: string): z.infer<Schema> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(`${source} is invalid:\n${formatIssues(parsed.error.issues, path, schema)}`);
}

function toConfig(file: AgentFile, servers: McpServerSpec[], source: string, environment: NodeJS.ProcessEnv): AgentConfig {
  const baseURL = environment.OPENAI_BASE_URL || file.model.baseURL || OPENAI_DEFAULT_BASE_URL;
  const apiKey = environment.OPENAI_API_KEY || file.model.apiKey || '';
  return {
    source,
    systemPrompt: file.systemPrompt,
    maxRounds: file.maxRounds,
    model: {
      name: environment.LLM_MODEL || file.model.name,
      baseURL,
      apiKey,
      temperature: file.model.temperature,
      ...(file.model.maxTokens === undefined ? {} : { maxTokens: file.model.maxTokens }),
      timeoutMs: seconds(file.model.timeoutSeconds),
      maxRetries: file.model.maxRetries,
      configured: apiKey !== '' || normalizeUrl(baseURL) !== normalizeUrl(OPENAI_DEFAULT_BASE_URL),
    },
    tools: {
      callTimeoutMs: seconds(file.tools.callTimeoutSeconds),
      maxOutputChars: file.tools.maxOutputChars,
      catalogTtlMs: seconds(file.tools.catalogTtlSeconds),
      connectTimeoutMs: seconds(file.tools.connectTimeoutSeconds),
      retryFailedAfterMs: seconds(file.tools.retryFailedAfterSeconds),
    },
    history: file.history,
    // The deployment names the table (the stack sets CONVERSATIONS_TABLE), whatever agent.yml says.
    conversation: { ttlDays: file.conversation.ttlDays, tableName: environment.CONVERSATIONS_TABLE || file.conversation.tableName },
    turn: { timeoutMs: seconds(file.turn.timeoutSeconds), reserveMs: seconds(file.turn.reserveSeconds) },
    http: { maxBodyBytes: file.http.maxBodyBytes, maxMessageChars: file.http.maxMessageChars, heartbeatMs: seconds(file.http.heartbeatSeconds) },
    logging: file.logging,
    mcpServers: servers,
  };
}

const seconds = (value: number) => Math.round(value * 1000);
const normalizeUrl = (url: string) => url.replace(/\/+$/, '');
