/** Every behaviour-altering default in one place. agent.yml overrides them. */

/** The fixed system prompt of the original request. */
export const DEFAULT_SYSTEM_PROMPT =
  '你是一个智能助手，需要得到用户想要的最终回复时才停止调用function，否则你需要持续响应function_call JSON与function API交互。';

export const DEFAULTS = {
  maxRounds: 8,
  model: {
    name: 'gpt-4o-mini',
    baseURL: 'https://api.openai.com/v1',
    temperature: 0.7,
    timeoutSeconds: 60,
    maxRetries: 2,
  },
  tools: {
    callTimeoutSeconds: 30,
    maxOutputChars: 16_000,
    catalogTtlSeconds: 300,
    connectTimeoutSeconds: 15,
    /** A server that failed is tried again after this long, not on every request. */
    retryFailedAfterSeconds: 30,
  },
  history: { maxTokens: 16_000 },
  conversation: { ttlDays: 30, tableName: 'mcp-agent-conversations' },
  turn: {
    /** Local runs have no Lambda deadline: each turn gets this long. */
    timeoutSeconds: 300,
    /** Time kept back at the end of a turn to store it. */
    reserveSeconds: 3,
  },
  http: { maxBodyBytes: 64 * 1024, maxMessageChars: 16_000, heartbeatSeconds: 15 },
} as const;

/** A claim outlives its turn's deadline by this much before another request may take over. */
export const LEASE_MARGIN_MS = 60_000;

/**
 * The queue worker starts no record with less than this (plus turn.reserveSeconds) left: enough for
 * one model round. A record not started is redelivered, which beats a turn that stops at once.
 */
export const WORKER_START_MARGIN_MS = 10_000;

/**
 * A failed queue record comes back after REDELIVERY_BASE_SECONDS, doubling with each receive, at
 * most REDELIVERY_MAX_SECONDS (lib/queue/redelivery.ts).
 */
export const REDELIVERY_BASE_SECONDS = 60;
export const REDELIVERY_MAX_SECONDS = 900;
