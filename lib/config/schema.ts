import { z } from 'zod';
import { DEFAULT_SYSTEM_PROMPT, DEFAULTS } from '../core/defaults.ts';

/**
 * The shape of agent.yml. Every object is strict: an unknown key is an error, not a silent no-op,
 * because a misspelt `maxRound` that is ignored is worse than a service that does not start.
 */
/**
 * `${VAR}` always yields text, so numbers and booleans also accept their plain text form
 * (`maxRounds: ${MAX_ROUNDS:-8}`); anything else still fails with "expected number".
 */
const fromText = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return value;
};
const numeric = <Schema extends z.ZodNumber>(schema: Schema) => z.preprocess(fromText, schema);
const boolean = () => z.preprocess(fromText, z.boolean());
const positiveInt = () => numeric(z.number().int().positive());
const positiveSeconds = () => numeric(z.number().positive());
const stringMap = () => z.record(z.string(), z.string());

const modelSchema = z.strictObject({
  name: z.string().min(1).default(DEFAULTS.model.name),
  baseURL: z.url().optional(),
  apiKey: z.string().optional(),
  temperature: numeric(z.number().min(0).max(2)).default(DEFAULTS.model.temperature),
  maxTokens: positiveInt().optional(),
  timeoutSeconds: positiveSeconds().default(DEFAULTS.model.timeoutSeconds),
  maxRetries: numeric(z.number().int().min(0).max(10)).default(DEFAULTS.model.maxRetries),
});

const toolsSchema = z.strictObject({
  callTimeoutSeconds: positiveSeconds().default(DEFAULTS.tools.callTimeoutSeconds),
  maxOutputChars: positiveInt().default(DEFAULTS.tools.maxOutputChars),
  catalogTtlSeconds: numeric(z.number().min(0)).default(DEFAULTS.tools.catalogTtlSeconds),
  connectTimeoutSeconds: positiveSeconds().default(DEFAULTS.tools.connectTimeoutSeconds),
  retryFailedAfterSeconds: numeric(z.number().min(0)).default(DEFAULTS.tools.retryFailedAfterSeconds),
});

export const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: stringMap().default({}),
  cwd: z.string().optional(),
});

export const remoteServerSchema = z.strictObject({
  type: z.enum(['http', 'sse']).optional(),
  url: z.url(),
  headers: stringMap().default({}),
});

export const fileSchema = z.strictObject({
  systemPrompt: z.string().min(1).default(DEFAULT_SYSTEM_PROMPT),
  maxRounds: numeric(z.number().int().positive().max(100)).default(DEFAULTS.maxRounds),
  model: modelSchema.default(modelSchema.parse({})),
  tools: toolsSchema.default(toolsSchema.parse({})),
  history: z
    .strictObject({ maxTokens: numeric(z.number().int().min(0)).default(DEFAULTS.history.maxTokens) })
    .default({ maxTokens: DEFAULTS.history.maxTokens }),
  conversation: z
    .strictObject({
      ttlDays: positiveSeconds().default(DEFAULTS.conversation.ttlDays),
      tableName: z.string().min(3).max(255).default(DEFAULTS.conversation.tableName),
    })
    .default({ ttlDays: DEFAULTS.conversation.ttlDays, tableName: DEFAULTS.conversation.tableName }),
  turn: z
    .strictObject({
      timeoutSeconds: positiveSeconds().default(DEFAULTS.turn.timeoutSeconds),
      reserveSeconds: numeric(z.number().min(0)).default(DEFAULTS.turn.reserveSeconds),
    })
    .default({ timeoutSeconds: DEFAULTS.turn.timeoutSeconds, reserveSeconds: DEFAULTS.turn.reserveSeconds }),
  http: z
    .strictObject({
      maxBodyBytes: positiveInt().default(DEFAULTS.http.maxBodyBytes),
      maxMessageChars: positiveInt().default(DEFAULTS.http.maxMessageChars),
      /** Streaming responses send a comment this often, so proxies keep an idle connection open. */
      heartbeatSeconds: positiveSeconds().default(DEFAULTS.http.heartbeatSeconds),
    })
    .default({ maxBodyBytes: DEFAULTS.http.maxBodyBytes, maxMessageChars: DEFAULTS.http.maxMessageChars, heartbeatSeconds: DEFAULTS.http.heartbeatSeconds }),
  logging: z
    .strictObject({
      level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
      /** Prompts, replies and tool payloads appear in logs only when this is on. */
      logPayloads: boolean().default(false),
    })
    .default({ level: 'info', logPayloads: false }),
  /** Checked entry by entry in load.ts, so each gets the message of its own kind (stdio or remote). */
  mcpServers: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'server names use letters, digits, _ . -'), z.unknown()).default({}),
});

export type AgentFile = z.infer<typeof fileSchema>;
