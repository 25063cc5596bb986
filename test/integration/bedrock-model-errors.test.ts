/**
 * Each Bedrock exception, answered by the stand-in as Bedrock answers it (a status,
 * `x-amzn-errortype`, `{"message"}`), through the SDK and the adapter to the model_* codes.
 */
import { describe, expect, it } from 'vitest';
import { createBedrockClient } from '../../lib/adapters/bedrock/client.ts';
import { createBedrockModel } from '../../lib/adapters/bedrock/model.ts';
import { ModelError } from '../../lib/core/errors.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import { bedrockModelsPerTest } from '../support/bedrock-model.ts';
import { converseText } from '../support/bedrock-stand-in-events.ts';
import { STAND_IN_REGION, startBedrockStandIn, type BedrockFailure } from '../support/bedrock-stand-in.ts';
import { getWeather } from '../support/original-tools.ts';

const MODEL = 'eu.amazon.nova-pro-v1:0';
const modelAgainst = bedrockModelsPerTest(MODEL);
const SECRET_QUESTION = 'my card number is 4111 1111 1111 1111';
const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ messages: [{ role: 'user', content: SECRET_QUESTION }], tools: [getWeather], ...overrides });
const QUICK = { 'retry-after-ms': '5' };
const failure = (exception: string, status: number, message: string): BedrockFailure => ({ exception, status, message, headers: QUICK });

async function failed(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe('createBedrockModel errors', () => {
  it.each([
    ['ThrottlingException', 429, 'Too many requests, please wait before trying again.', 'model_rate_limited', false],
    ['ModelTimeoutException', 408, 'Model has timed out in processing the request.', 'model_timeout', true],
    ['ServiceUnavailableException', 503, 'Bedrock is unable to process your request.', 'model_unavailable', false],
    ['ModelNotReadyException', 429, 'Model is not ready to serve inference requests.', 'model_unavailable', false],
    ['InternalServerException', 500, 'The server encountered an error.', 'model_unavailable', false],
  ])('retries %s (HTTP %i) up to maxRetries, then fails with %s', async (exception, status, message, code, timeout) => {
    const { standIn, model } = await modelAgainst([failure(exception, status, message), failure(exception, status, message), failure(exception, status, message)]);

    const error = await failed(model.complete(request()));

    expect(standIn.requests).toHaveLength(3);
    expect(error.code).toBe(code);
    expect(error.timeout).toBe(timeout);
    expect(error.message).toContain(message);
    expect(error.message).toContain(MODEL);
    expect(error.message).toContain('after 3 attempts');
  });

  it('answers once a retry succeeds', async () => {
    const { standIn, model } = await modelAgainst([failure('ThrottlingException', 429, 'Too many requests'), converseText('fine')]);

    const reply = await model.complete(request());

    expect(reply.content).toBe('fine');
    expect(standIn.requests).toHaveLength(2);
  });

  it('fails AccessDeniedException at once with model_auth_failed, naming the model, the permission and model access', async () => {
    const message = "You don't have access to the model with the specified model ID.";
    const { standIn, model } = await modelAgainst([failure('AccessDeniedException', 403, message)]);

    const error = await failed(model.complete(request()));

    expect(standIn.requests).toHaveLength(1);
    expect(error.code).toBe('model_auth_failed');
    expect(error.message).toContain(MODEL);
    expect(error.message).toContain('bedrock:InvokeModel');
    expect(error.message).toContain('Model access');
    expect(error.message).toContain(message);
  });

  it('names bedrock:InvokeModelWithResponseStream when a stream is denied', async () => {
    const { model } = await modelAgainst([failure('AccessDeniedException', 403, 'not authorized')]);

    const error = await failed(model.complete(request({ onDelta: () => {} })));

    expect(error.code).toBe('model_auth_failed');
    expect(error.message).toContain('bedrock:InvokeModelWithResponseStream');
  });

  it('fails ValidationException at once with model_rejected_request, Bedrock’s words and never the request body', async () => {
    const message = 'The model returned the following errors: Input is too long for requested model.';
    const { standIn, model } = await modelAgainst([failure('ValidationException', 400, message)]);

    const error = await failed(model.complete(request()));

    expect(standIn.requests).toHaveLength(1);
    expect(error.code).toBe('model_rejected_request');
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('4111');
  });

  it('fails a request Bedrock would refuse as model_rejected_request with the stand-in’s ValidationException', async () => {
    const { standIn, model } = await modelAgainst([converseText('never')]);

    // A conversation that starts with the assistant: nothing the adapter can repair.
    const error = await failed(model.complete(request({ messages: [{ role: 'assistant', content: 'Hello', toolCalls: [] }] })));

    expect(standIn.requests[0]!.rejected).toContain('must start with a user message');
    expect(error.code).toBe('model_rejected_request');
    expect(error.message).toContain('ValidationException');
  });

  it('fails ResourceNotFoundException with model_rejected_request saying to check the model and region', async () => {
    const { model } = await modelAgainst([failure('ResourceNotFoundException', 404, 'Model not found.')]);

    const error = await failed(model.complete(request()));

    expect(error.code).toBe('model_rejected_request');
    expect(error.message).toContain('model.name');
  });

  it('fails ServiceQuotaExceededException with model_quota_exceeded, not retried', async () => {
    const { standIn, model } = await modelAgainst([failure('ServiceQuotaExceededException', 400, 'Quota exceeded.')]);

    const error = await failed(model.complete(request()));

    expect(error.code).toBe('model_quota_exceeded');
    expect(standIn.requests).toHaveLength(1);
  });

  it('fails with model_auth_failed when the request is signed with credentials Bedrock does not know', async () => {
    const standIn = await startBedrockStandIn([converseText('never')]);
    try {
      const client = createBedrockClient({ region: STAND_IN_REGION, endpoint: standIn.endpoint, credentials: { accessKeyId: 'AKIDSTANDIN00000000', secretAccessKey: 'a-wrong-secret' } });
      const model = createBedrockModel({ client, model: MODEL, endpoint: standIn.endpoint, maxRetries: 2, attemptTimeoutMs: 10_000 });

      const error = await failed(model.complete(request()));

      expect(standIn.requests[0]!.rejected).toContain('signature we calculated does not match');
      expect(error.code).toBe('model_auth_failed');
      expect(error.message).toContain('InvalidSignatureException');
      expect(standIn.requests).toHaveLength(1);
    } finally {
      await standIn.close();
    }
  });

  it('fails with model_unavailable naming the endpoint when nothing listens there, after retries', async () => {
    const standIn = await startBedrockStandIn([]);
    await standIn.close();
    const client = createBedrockClient({ region: STAND_IN_REGION, endpoint: standIn.endpoint, credentials: { accessKeyId: 'AKIDSTANDIN00000000', secretAccessKey: 'x' } });
    const model = createBedrockModel({ client, model: MODEL, endpoint: standIn.endpoint, maxRetries: 1, attemptTimeoutMs: 10_000 });

    const error = await failed(model.complete(request()));

    expect(error.code).toBe('model_unavailable');
    expect(error.message).toContain(standIn.endpoint);
    expect(error.message).toContain('after 2 attempts');
  });

  it('fails with model_timeout at the call’s timeoutMs, and model_aborted when the caller cancels', async () => {
    const { model } = await modelAgainst([{ events: [], ending: 'hang' }, { events: [], ending: 'hang' }]);

    const timedOut = await failed(model.complete(request({ timeoutMs: 200, onDelta: () => {} })));
    const controller = new AbortController();
    const cancelled = model.complete(request({ signal: controller.signal, onDelta: () => {} }));
    setTimeout(() => controller.abort(), 50);
    const aborted = await failed(cancelled);

    expect(timedOut).toMatchObject({ code: 'model_timeout', timeout: true });
    expect(aborted.code).toBe('model_aborted');
  });

  it('maps each exception inside a stream the same way (throttlingException, after retries)', async () => {
    const throttled = { events: [{ exception: 'throttlingException', message: 'Too many tokens.' }] };
    const { standIn, model } = await modelAgainst([throttled, throttled], { maxRetries: 1 });

    const error = await failed(model.complete(request({ onDelta: () => {} })));

    expect(standIn.requests).toHaveLength(2);
    expect(error.code).toBe('model_rate_limited');
  });
});
