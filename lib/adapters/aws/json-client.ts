/**
 * A client for AWS services that speak the JSON protocol (awsJson1_0 / 1_1: DynamoDB, Secrets
 * Manager, SSM, KMS): `POST /` with the operation in `x-amz-target`, the input as JSON, signed
 * with SigV4 (sign-json-post.ts), sent with node:http(s) over kept-alive connections (http-transport.ts; measured in
 * the stream function, about 30 ms less CPU per cold start than the global fetch). It does what the SDK's
 * client does for such a call, no more: sign each attempt afresh, bound it by a timeout, retry it
 * as the SDK's standard mode does (retry-quota.ts), and turn an error answer into an error shaped
 * as the SDK's (service-error.ts). The SDK's DynamoDB client, its middleware stack, schemas and
 * endpoint rules cost about 70 ms of a cold start's CPU (docs/deploying.md).
 *
 * Like the SDK, it keeps its clock's offset from the service's (the Date of each answer) and
 * signs with it, so that a machine whose clock is minutes off (a laptop after sleep) is not refused
 * with "Signature expired"; an attempt refused so is retried once the offset is corrected.
 *
 * Left out: endpoint discovery, checksums of answers, and the SDK's user agent and invocation-id
 * headers.
 */
import { fetchTransport, nodeTransport, type HttpTransport } from './http-transport.ts';
import { createRetryQuota, type AttemptFailure, type RetryQuota } from './retry-quota.ts';
import { retryAfterHint, serviceError, type ResponseMetadata } from './service-error.ts';
import { signJsonPost, type AwsCredentialsProvider } from './sign-json-post.ts';

export type { AwsCredentials, AwsCredentialsProvider } from './sign-json-post.ts';

export interface AwsJsonClientOptions {
  /** The signing name (`dynamodb`, `secretsmanager`, …). */
  service: string;
  /** `x-amz-target` is `<targetPrefix>.<Operation>` (`DynamoDB_20120810`). */
  targetPrefix: string;
  /** '1.0' (DynamoDB) or '1.1' (Secrets Manager, SSM, KMS). */
  jsonVersion: '1.0' | '1.1';
  endpoint: string;
  region: string;
  credentials: AwsCredentialsProvider;
  /** Each attempt must be answered within this long, its connection included. */
  requestTimeoutMs: number;
  /** A new connection must be made within this long (the node:http transport only). */
  connectTimeoutMs?: number;
  /** Attempts in all (the SDK's maxAttempts). */
  maxAttempts: number;
  /** The backoff base for retries after anything but throttling. */
  baseDelayMs: number;
  /** A retry that failed with such an error gives its cost back to the quota. */
  refundsRetry?: (error: unknown) => boolean;
  /** Turns the fields of an error answer into what the error carries (DynamoDB's Item, unmarshalled). */
  errorFields?: (fields: Record<string, unknown>) => Record<string, unknown>;
  /** Injectable for tests: requests then go through it instead of node:http(s). */
  fetch?: typeof fetch;
  random?: () => number;
}

export interface AwsJsonClient {
  /** The operation's output as parsed JSON, with the SDK's `$metadata`. */
  call(operation: string, input: unknown, options?: { abortSignal?: AbortSignal }): Promise<Record<string, unknown> & { $metadata: ResponseMetadata }>;
  readonly retryQuota: RetryQuota;
}

export function createAwsJsonClient(options: AwsJsonClientOptions): AwsJsonClient {
  const url = new URL(options.endpoint);
  const send: HttpTransport = options.fetch ? fetchTransport(options.fetch) : nodeTransport({ ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}) });
  const contentType = `application/x-amz-json-${options.jsonVersion}`;
  const scope = { service: options.service, region: options.region };
  const resolvedCredentials = async () => {
    const credentials = await options.credentials();
    if (typeof credentials?.accessKeyId !== 'string' || typeof credentials.secretAccessKey !== 'string') throw new Error('The AWS credentials resolved have no accessKeyId or secretAccessKey.');
    return credentials;
  };
  const retryQuota = createRetryQuota({
    maxAttempts: options.maxAttempts,
    baseDelayMs: options.baseDelayMs,
    ...(options.refundsRetry ? { refundsRetry: options.refundsRetry } : {}),
    ...(options.random ? { random: options.random } : {}),
  });

  /** This machine's clock's distance from the service's, as the last answer's Date said (the SDK's systemClockOffset). */
  let clockOffsetMs = 0;

  /** One attempt: its answer, or what went wrong (never a retry decision). */
  async function attempt(operation: string, body: string, callerSignal: AbortSignal | undefined): Promise<{ output: Record<string, unknown>; metadata: ResponseMetadata } | AttemptFailure> {
    const offsetBefore = clockOffsetMs;
    const sentAt = Date.now();
    const headers = signJsonPost(
      // URL.host carries the port when it is not the scheme's default, as the Host header node:http sends.
      { host: url.host, path: url.pathname, headers: { 'content-type': contentType, 'x-amz-target': `${options.targetPrefix}.${operation}` }, body },
      await resolvedCredentials(),
      scope,
      new Date(sentAt + offsetBefore),
    );
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.requestTimeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
    let answer;
    try {
      answer = await send(url, { headers, body, signal });
    } catch (error) {
      if (callerSignal?.aborted) throw abortError(callerSignal);
      if (timeout.signal.aborted) {
        const timedOut = Object.assign(new Error(`${operation} got no answer within ${options.requestTimeoutMs} ms`), { name: 'TimeoutError', code: 'ETIMEDOUT' });
        return { error: timedOut, transport: true };
      }
      // The connection was refused, reset or lost.
      return { error, transport: true };
    } finally {
      clearTimeout(timer);
    }
    const requestId = answer.headers.get('x-amzn-requestid') ?? undefined;
    // An empty answer is an empty output (the SDK's JSON protocol reads it as {}).
    const parsed = answer.text.trim() === '' ? {} : parseObject(answer.text);
    const serverTime = typeof parsed?.ServerTime === 'string' ? parsed.ServerTime : answer.headers.get('date');
    if (serverTime !== null && answer.headers.get('age') === null) clockOffsetMs = updatedClockOffset(serverTime, clockOffsetMs, sentAt);
    if (answer.status >= 200 && answer.status < 300) {
      // Not retried (a client error, as the SDK's SyntaxError), but counted in $metadata as any failure.
      if (!parsed) return { error: Object.assign(new Error(`${operation}: the answer is not a JSON object`), { $metadata: { httpStatusCode: answer.status, ...(requestId ? { requestId } : {}) } }), status: answer.status };
      return { output: parsed, metadata: { httpStatusCode: answer.status, ...(requestId ? { requestId } : {}) } };
    }
    const error = serviceError(answer.status, answer.headers, parsed ?? {}, requestId);
    if (options.errorFields) Object.assign(error, options.errorFields(error));
    const retryAfter = retryAfterHint(answer.headers);
    // As the SDK: a correction of minutes makes the failure worth retrying (signed with the new offset).
    const clockSkewCorrected = Math.abs(clockOffsetMs) >= CLOCK_SKEW_CORRECTION_MS && clockOffsetMs !== offsetBefore;
    if (clockSkewCorrected) error.$metadata.clockSkewCorrected = true;
    return { error, status: answer.status, ...(retryAfter ? { retryAfter } : {}), ...(clockSkewCorrected ? { clockSkewCorrected } : {}) };
  }

  async function call(operation: string, input: unknown, callOptions: { abortSignal?: AbortSignal } = {}) {
    const signal = callOptions.abortSignal;
    if (signal?.aborted) throw abortError(signal);
    const body = JSON.stringify(input);
    let token = retryQuota.firstAttempt();
    let totalRetryDelay = 0;
    for (;;) {
      const outcome = await attempt(operation, body, signal);
      if ('output' in outcome) {
        retryQuota.succeeded(token);
        return Object.assign(outcome.output, { $metadata: { ...outcome.metadata, attempts: token.retries + 1, totalRetryDelay } });
      }
      const next = retryQuota.retry(token, outcome);
      if (!next) {
        const error = outcome.error as Error & { $metadata?: ResponseMetadata };
        error.$metadata = { ...error.$metadata, attempts: token.retries + 1, totalRetryDelay };
        throw error;
      }
      token = next.token;
      totalRetryDelay += next.delayMs;
      if (next.delayMs > 0) await pause(next.delayMs, signal);
    }
  }

  return { call, retryQuota };
}

/** A correction at least this large marks the failed attempt as caused by the clock (the SDK's threshold). */
const CLOCK_SKEW_CORRECTION_MS = 240_000;
/** An answer that took longer than this says nothing reliable about the clocks. */
const CLOCK_SAMPLE_LIMIT_MS = 900_000;

/** The SDK's getUpdatedSystemClockOffset: the service's time minus this machine's, from a Date header. */
function updatedClockOffset(serverTime: string, currentOffsetMs: number, sentAt: number): number {
  const server = Date.parse(serverTime);
  const now = Date.now();
  if (Number.isNaN(server) || now - sentAt > CLOCK_SAMPLE_LIMIT_MS) return currentOffsetMs;
  return server - now;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** As the SDK's: an Error named AbortError, whatever the signal's reason. */
const abortError = (signal: AbortSignal) =>
  Object.assign(new Error('Request aborted'), { name: 'AbortError', ...(signal.reason === undefined ? {} : { cause: signal.reason }) });

/** The backoff before a retry, cut short by the caller's signal. */
function pause(delayMs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
