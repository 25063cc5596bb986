import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { ACCEPTED_PREVALIDATION, validateFile } from '#config-validation';
import { ConfigError, errorMessage } from '../core/errors.ts';
import { ENV, type Environment } from './environment.ts';
import { interpolateEnvironment } from './interpolate.ts';
import { PREVALIDATED_KEY, takePrevalidated } from './prevalidated.ts';
import type { AgentFile } from './schema.ts';
import { DEFAULT_MODEL_NAMES, DEMO_MODEL_NAME, MODEL_PROVIDERS, type ModelProviderName } from './schema/model-names.ts';
import { assertSecretsFromEnvironment } from './secret-fields.ts';
import type { RemoteServerFile, StdioServerFile, ValidatedFile } from './validate.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** One entry of `mcpServers`, named, with its transport settled and relative paths resolved. */
export type McpServerConfig =
  | (Omit<StdioServerFile, 'type' | 'cwd'> & { name: string; type: 'stdio'; cwd: string })
  | (Omit<RemoteServerFile, 'type'> & { name: string; type: 'http' | 'sse' | 'auto' });

/**
 * The validated configuration: agent.yml as the schema outputs it (defaults filled in), with the
 * environment's overrides applied. Durations keep the unit their key names (`timeoutSeconds`).
 */
export type AgentConfig = Omit<AgentFile, 'model' | 'mcpServers'> & {
  /** The file this configuration was read from. */
  source: string;
  model: Omit<AgentFile['model'], 'baseURL' | 'apiKey' | 'name' | 'region'> & {
    /** Named, or the provider's default; empty when the provider has none and none is named. */
    name: string;
    /** bedrock, and openai with auth sigv4: model.region, else AWS_REGION (AWS_DEFAULT_REGION); unset when neither is. */
    region?: string;
    /** bedrock: BEDROCK_ENDPOINT, when set. */
    endpoint?: string;
    /** Empty for the offline stand-in, which calls no endpoint. */
    baseURL: string;
    apiKey: string;
    /**
     * False when neither an API key nor a non-OpenAI endpoint is set, the requests are not signed
     * with SigV4 (auth sigv4), and the model is not the offline stand-in: questions answer 503.
     */
    configured: boolean;
    /** The model is the offline stand-in (name `demo`): rules, no language model. */
    offlineStandIn: boolean;
  };
  mcpServers: McpServerConfig[];
};

export interface LoadConfigOptions {
  /** Defaults to `AGENT_CONFIG`, then `agent.yml` in the working directory. */
  path?: string;
  environment?: Environment;
}

/** Reads, interpolates and validates agent.yml once, before any side effect. Throws ConfigError. */
export function loadConfig(options: LoadConfigOptions = {}): AgentConfig {
  const environment = options.environment ?? process.env;
  const source = resolve(options.path ?? (environment[ENV.agentConfig] || 'agent.yml'));
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the agent configuration ${source}: ${errorMessage(error)} (set ${ENV.agentConfig} to another file)`, { cause: error });
  }
  return parseConfig(text, { source, environment });
}

/** Validates agent.yml text; `source` names the file in messages and anchors relative paths. */
export function parseConfig(text: string, options: { source: string; environment?: Environment }): AgentConfig {
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
  // A Lambda bundle's agent.json carries the form the build validated (lib/config/prevalidated.ts).
  const { [PREVALIDATED_KEY]: prevalidated, ...written } = document as Record<string, unknown>;
  const file =
    (prevalidated === undefined ? undefined : takePrevalidated(prevalidated, written, ACCEPTED_PREVALIDATION, environment, options.source)) ??
    validated(written, options.source, environment);
  const servers = Object.entries(file.mcpServers).map(([name, entry]) => serverConfig(name, entry, options.source));
  return withEnvironment(file, servers, options.source, environment);
}

/** The document checked as written, interpolated, then validated with the schema. */
function validated(document: object, source: string, environment: Environment): ValidatedFile {
  assertSecretsFromEnvironment(document, source);
  let interpolated: unknown;
  try {
    interpolated = interpolateEnvironment(document, environment);
  } catch (error) {
    throw new ConfigError(`${source} is invalid:\n  - ${errorMessage(error)}`, { cause: error });
  }
  return validateFile(interpolated, source);
}

/** A validated entry of `mcpServers`, named, with its transport settled and relative paths resolved. */
function serverConfig(name: string, entry: StdioServerFile | RemoteServerFile, source: string): McpServerConfig {
  if ('command' in entry) {
    const { type: _stdio, cwd, ...server } = entry;
    // A relative working directory is relative to agent.yml, and so are relative script paths by default.
    return { name, type: 'stdio', ...server, ...rootUris(server.roots, source), cwd: resolve(dirname(source), cwd ?? '.') };
  }
  const { type, ...server } = entry;
  // A workload identity token file is found from agent.yml's folder, as a stdio server's cwd is.
  const assertionFile = server.oauth?.assertionFile;
  const oauth = server.oauth && assertionFile ? { oauth: { ...server.oauth, assertionFile: resolve(dirname(source), assertionFile) } } : {};
  return { name, type: type ?? 'auto', ...server, ...oauth, ...rootUris(server.roots, source) };
}

/** Roots as MCP sends them: file:// URIs, a relative path taken from agent.yml's folder. */
function rootUris(roots: string[] | undefined, source: string): { roots?: string[] } {
  if (roots === undefined) return {};
  return { roots: roots.map((root) => (root.startsWith('file://') ? root : pathToFileURL(resolve(dirname(source), root)).href)) };
}

function withEnvironment(file: ValidatedFile, servers: McpServerConfig[], source: string, environment: Environment): AgentConfig {
  const baseURL = environment[ENV.modelBaseUrl] || file.model.baseURL || OPENAI_DEFAULT_BASE_URL;
  const apiKey = environment[ENV.modelApiKey] || file.model.apiKey || '';
  const provider = providerOf(environment[ENV.modelProvider]?.trim() || file.model.provider);
  const named = environment[ENV.modelName] || file.model.name;
  // LLM_MODEL=demo has always meant the offline stand-in, whatever the provider.
  const offlineStandIn = named === DEMO_MODEL_NAME || provider === 'demo';
  const name = offlineStandIn ? DEMO_MODEL_NAME : (named ?? DEFAULT_MODEL_NAMES[provider] ?? '');
  const region = file.model.region || environment[ENV.awsRegion]?.trim() || environment[ENV.awsDefaultRegion]?.trim() || undefined;
  const endpoint = environment[ENV.bedrockEndpoint]?.trim() || undefined;
  // Bedrock's OpenAI-compatible endpoints: the openai provider signs with SigV4, in a region.
  const signed = provider === 'openai' && !offlineStandIn && file.model.auth === 'sigv4';
  return {
    ...file,
    source,
    model: {
      ...file.model,
      name,
      provider: offlineStandIn ? 'demo' : provider,
      baseURL: offlineStandIn || provider !== 'openai' ? '' : baseURL,
      apiKey,
      // An OpenAI-compatible endpoint needs a key or an endpoint of its own; the other providers,
      // and an endpoint signed with SigV4, say themselves what they lack (lib/providers/configured-model.ts).
      configured: offlineStandIn || provider !== 'openai' || signed || apiKey !== '' || normalizeUrl(baseURL) !== normalizeUrl(OPENAI_DEFAULT_BASE_URL),
      offlineStandIn,
      ...((provider === 'bedrock' || signed) && region ? { region } : {}),
      ...(provider === 'bedrock' && endpoint ? { endpoint } : {}),
    },
    // The deployment names the table (the stack sets CONVERSATIONS_TABLE), whatever agent.yml says.
    conversation: { ...file.conversation, tableName: environment[ENV.conversationsTable] || file.conversation.tableName },
    // Policy files are found from agent.yml's folder, as a stdio server's cwd is.
    toolPolicy: Object.fromEntries(Object.entries(file.toolPolicy).map(([key, path]) => [key, resolve(dirname(source), path)])),
    mcpServers: servers,
  };
}

const normalizeUrl = (url: string) => url.replace(/\/+$/, '');

function providerOf(value: string): ModelProviderName {
  if ((MODEL_PROVIDERS as readonly string[]).includes(value)) return value as ModelProviderName;
  throw new ConfigError(`${ENV.modelProvider} (or model.provider) is "${value}": expected one of ${MODEL_PROVIDERS.join(', ')}`);
}
