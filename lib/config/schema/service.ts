/** agent.yml keys of the service around each turn: `approvals`, `conversation`, `turn`, `limits`, `trace`, `logging`, `telemetry`. */

import * as z from 'zod';
import { boolean, numeric, positiveInt, positiveSeconds, seconds } from './shared.ts';

/** Tool calls waiting for a person's decision. */
export const approvalsSchema = z
  .strictObject({
    /** Calls waiting for a decision longer than this are declined on the next request. */
    ttlSeconds: positiveSeconds().default(86_400),
  })
  .prefault({});

/** The conversation store (DynamoDB). */
export const conversationSchema = z
  .strictObject({
    /** Each stored turn expires this long after it was last written (the table's TTL). */
    ttlDays: positiveSeconds().default(30),
    /** CONVERSATIONS_TABLE overrides (the AWS stack sets it). */
    tableName: z.string().min(3).max(255).default('mcp-agent-conversations'),
    /** Each DynamoDB request must be answered within this long, or it is retried. */
    requestTimeoutSeconds: positiveSeconds().default(5),
    /** Opening a connection to DynamoDB must take no longer than this. */
    connectTimeoutSeconds: positiveSeconds().default(2),
    /**
     * While nothing of a request has run yet (no tool call), an unavailable store is waited for
     * this long, not for the turn's whole time, before the request is answered 503 with Retry-After.
     */
    unavailableWaitSeconds: positiveSeconds().default(5),
  })
  .prefault({});

/** One turn's time and the claim that keeps two turns of a conversation from running at once. */
export const turnSchema = z
  .strictObject({
    /** Local runs and embedding code have no Lambda deadline: each turn gets this long. */
    timeoutSeconds: positiveSeconds().default(300),
    /** Time kept back at the end of a turn to store it. */
    reserveSeconds: seconds().default(3),
    /**
     * How long a running turn's claim (and its turn slot) holds without being renewed. The process
     * renews it while it lives (a third of the way through, unless a round record carried it), so
     * a process that died blocks its conversation for at most about this long. Keep it well above
     * the clock skew between machines and a DynamoDB write's worst latency.
     */
    leaseSeconds: numeric(z.number().min(1, 'a lease must be at least 1 s: it is renewed a third of the way through')).default(30),
    /** No claim lasts past the turn's deadline plus this: by then its process has surely stopped. */
    leaseMarginSeconds: seconds().default(10),
  })
  .prefault({});

/**
 * Budgets for a shared deployment. Tokens are prompt + completion tokens as the model reports
 * them, checked before every model call. A turn is bounded by default; 0 turns that off.
 */
export const limitsSchema = z
  .strictObject({
    tokensPerTurn: numeric(z.number().int().min(0)).default(200_000).transform((tokens) => (tokens === 0 ? undefined : tokens)),
    tokensPerConversation: positiveInt().optional(),
    /** Per owner (the caller's identity; without authentication, all callers together) and UTC day. */
    tokensPerOwnerPerDay: positiveInt().optional(),
    /** Turns one owner runs at once, so no one holds all of the account's Lambda concurrency; 0: no limit. */
    concurrentTurnsPerOwner: numeric(z.number().int().min(0)).default(4),
  })
  .prefault({});

/** The trace of each turn, kept with it. */
export const traceSchema = z
  .strictObject({
    /**
     * Keep each turn's model requests and replies with the turn (the chat page's inspector, GET
     * /conversations/{id}/turns/{turn}/trace). On: it stays in the conversation's own item, read
     * only by its owner and deleted with it, unlike logs (logging.logPayloads).
     */
    enabled: boolean().default(true),
    /** The most a turn's trace may take in its stored item, as JSON; longer texts are cut, with a marker. */
    maxBytes: numeric(z.number().int().min(2048).max(131_072)).default(65_536),
    /** `full`: every text as sent; `none`: no texts (structure, ids, names, lengths, timings and usage only). */
    contents: z.enum(['full', 'none']).default('full'),
  })
  .prefault({});

/** What the service logs. */
export const loggingSchema = z
  .strictObject({
    level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    /** Prompts, replies and tool payloads appear in logs only when this is on. */
    logPayloads: boolean().default(false),
  })
  .prefault({});

/** OpenTelemetry (docs/observability.md): exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
export const telemetrySchema = z
  .strictObject({
    /** Messages, replies and tool arguments and results on the spans; off, spans carry names, ids, counts and timings only. */
    captureContent: boolean().default(false),
  })
  .prefault({});
