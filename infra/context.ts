import { OWNER_FROM_VALUES } from '../lib/config/environment.ts';
import { AGENT_EVENT_SOURCE } from '../lib/core/event-names.ts';
import { OWNER_SENDER_KEYWORDS } from '../lib/queue/senders.ts';
import { MODEL_PROVIDERS, type AgentSettings, type AuthMode } from './settings.ts';

/** The part of a construct node that reads context (`app.node`). */
export interface ContextReader {
  tryGetContext(key: string): unknown;
}

const AUTH_MODES: readonly AuthMode[] = ['none', 'iam', 'cognito'];
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;
const USER_POOL_ARN = /^arn:aws[a-z-]*:cognito-idp:[a-z0-9-]+:\d{12}:userpool\/[\w-]+_[0-9A-Za-z]+$/;
const PARAMETER_NAME = /^[\w.\-/]{1,2048}$/;
const ORIGIN = /^https?:\/\/[^/\s]+$/;
/** What EventBridge takes as an event's Source, kept to characters that need no escaping anywhere. */
const EVENT_SOURCE = /^[A-Za-z0-9][\w.\-/:]{0,255}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

/**
 * Reads the deployment settings from CDK context (cdk.json or `-c key=value`), strictly: a wrong
 * value stops the synth with a message naming the key and what it expects. Values given with `-c`
 * arrive as strings, values in cdk.json as JSON; both are accepted.
 */
export function settingsFromContext(context: ContextReader): AgentSettings {
  const authMode = oneOf(context, 'authMode', AUTH_MODES);
  const userPoolArn = matching(context, 'userPoolArn', USER_POOL_ARN, 'a Cognito user pool ARN (arn:aws:cognito-idp:<region>:<account>:userpool/<pool id>)');
  if (userPoolArn !== undefined && authMode !== 'cognito') {
    throw new Error('context userPoolArn is only used with authMode=cognito: set authMode=cognito or remove userPoolArn');
  }
  const modelApiKeySecretArn = matching(context, 'modelApiKeySecretArn', SECRET_ARN, "a Secrets Manager secret's complete ARN, with its six-character suffix (aws secretsmanager describe-secret prints it)");
  const modelApiKeyParameterName = matching(context, 'modelApiKeyParameterName', PARAMETER_NAME, 'an SSM parameter name such as /mcp-agent/model-api-key');
  if (modelApiKeySecretArn !== undefined && modelApiKeyParameterName !== undefined) {
    throw new Error('context modelApiKeySecretArn and modelApiKeyParameterName are alternatives: give one of them');
  }
  const modelBaseUrl = matching(context, 'modelBaseUrl', /^https?:\/\/\S+$/, 'an http(s) URL such as https://api.openai.com/v1');
  const removalPolicy = oneOf(context, 'removalPolicy', ['retain', 'destroy'] as const);
  const ownerFrom = oneOf(context, 'ownerFrom', OWNER_FROM_VALUES);
  if (ownerFrom !== undefined && (authMode ?? 'iam') !== 'iam') {
    throw new Error('context ownerFrom is only used with authMode=iam (it says whether an assumed role\'s session name is part of the owner): remove it or set authMode=iam');
  }
  const eventSources = list(context, 'eventSources', eventSource);
  const ownerSources = list(context, 'ownerSources', (entry, key) => ownerSource(entry, key, eventSources ?? []));
  const settings: AgentSettings = {
    authMode,
    ownerFrom,
    userPoolArn,
    modelApiKeySecretArn,
    modelApiKeyParameterName,
    modelBaseUrl,
    modelName: text(context, 'modelName'),
    modelProvider: oneOf(context, 'modelProvider', MODEL_PROVIDERS),
    modelRegions: list(context, 'modelRegions', region),
    removalPolicy,
    corsAllowOrigins: list(context, 'corsAllowOrigins', origin),
    throttleRateLimit: number(context, 'throttleRateLimit', { minimum: 1, integer: false }),
    throttleBurstLimit: number(context, 'throttleBurstLimit', { minimum: 1, integer: true }),
    maxReceiveCount: number(context, 'maxReceiveCount', { minimum: 1, maximum: 1000, integer: true }),
    workerMaxConcurrency: number(context, 'workerMaxConcurrency', { minimum: 2, maximum: 1000, integer: true }),
    agentConfig: text(context, 'agentConfig'),
    eventSources,
    ownerSources,
    otelExporterEndpoint: matching(context, 'otelExporterEndpoint', /^https?:\/\/\S+$/, 'an http(s) URL such as http://localhost:4318'),
    publicBaseUrl: matching(context, 'publicBaseUrl', /^https:\/\/\S+$/, 'an https URL such as https://agent.example.com'),
  };
  // Absent settings stay absent, so the stack's defaults apply.
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as AgentSettings;
}

function text(context: ContextReader, key: string): string | undefined {
  const value: unknown = context.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string, not ${JSON.stringify(value)}`);
  return value.trim();
}

function oneOf<T extends string>(context: ContextReader, key: string, allowed: readonly T[]): T | undefined {
  const value = text(context, key);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`context ${key} must be one of ${allowed.join(', ')}, not "${value}"`);
  return value as T;
}

function matching(context: ContextReader, key: string, pattern: RegExp, expected: string): string | undefined {
  const value = text(context, key);
  if (value !== undefined && !pattern.test(value)) throw new Error(`context ${key} must be ${expected}, not "${value}"`);
  return value;
}

function number(context: ContextReader, key: string, rule: { minimum: number; maximum?: number; integer: boolean }): number | undefined {
  const raw: unknown = context.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = typeof raw === 'string' ? Number(raw.trim()) : raw;
  const valid = typeof value === 'number' && Number.isFinite(value) && value >= rule.minimum
    && (rule.maximum === undefined || value <= rule.maximum) && (!rule.integer || Number.isInteger(value));
  if (!valid) {
    const range = rule.maximum === undefined ? `at least ${rule.minimum}` : `from ${rule.minimum} to ${rule.maximum}`;
    throw new Error(`context ${key} must be ${rule.integer ? 'a whole number' : 'a number'} ${range}, not ${JSON.stringify(raw)}`);
  }
  return value;
}

/** A JSON array in cdk.json, or a comma-separated list on the command line; each entry checked. */
function list(context: ContextReader, key: string, check: (entry: string, key: string) => string): string[] | undefined {
  const raw: unknown = context.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return undefined;
  const entries = typeof raw === 'string' ? (raw.trim().startsWith('[') ? parseJson(raw, key) : raw.split(',')) : raw;
  if (!Array.isArray(entries) || entries.length === 0) throw new Error(`context ${key} must be a list, not ${JSON.stringify(raw)}`);
  return entries.map((entry: unknown) => {
    if (typeof entry !== 'string') throw new Error(`context ${key}: each entry must be a string, not ${JSON.stringify(entry)}`);
    return check(entry.trim(), key);
  });
}

function origin(entry: string, key: string): string {
  if (entry !== '*' && !ORIGIN.test(entry)) throw new Error(`context ${key}: each origin must be * or scheme://host[:port] such as https://app.example.com, not ${JSON.stringify(entry)}`);
  return entry;
}

function region(entry: string, key: string): string {
  if (!REGION.test(entry)) throw new Error(`context ${key}: each region must be an AWS region such as eu-west-1, not ${JSON.stringify(entry)}`);
  return entry;
}

function eventSource(entry: string, key: string): string {
  if (!EVENT_SOURCE.test(entry)) throw new Error(`context ${key}: each source must be an EventBridge event source such as com.example.orders (letters, digits, . _ - / :), not ${JSON.stringify(entry)}`);
  if (entry.startsWith('aws.')) throw new Error(`context ${key}: "${entry}" cannot be sent by callers (EventBridge reserves aws.* for AWS services)`);
  if (entry === AGENT_EVENT_SOURCE) throw new Error(`context ${key}: "${entry}" is the stack's own source, reserved for the worker's announcements`);
  if ((OWNER_SENDER_KEYWORDS as readonly string[]).includes(entry)) throw new Error(`context ${key}: "${entry}" is a reserved sender name (ownerSources uses it for ${entry === 'queue' ? 'plain queue messages' : 'direct invokes'})`);
  return entry;
}

function ownerSource(entry: string, key: string, eventSources: readonly string[]): string {
  if ((OWNER_SENDER_KEYWORDS as readonly string[]).includes(entry) || eventSources.includes(entry)) return entry;
  throw new Error(`context ${key}: "${entry}" is not among eventSources (${eventSources.join(', ') || 'none listed'}) nor one of ${OWNER_SENDER_KEYWORDS.join(', ')}`);
}

function parseJson(text: string, key: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`context ${key} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}
