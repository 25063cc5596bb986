/**
 * The OpenAI model adapter (lib/adapters/openai) through its own client over real HTTP, against
 * the scripted OpenAI-compatible server.
 */
import { afterEach, expect } from 'vitest';
import { createOpenAIClient } from '../../lib/adapters/openai/client.ts';
import { createOpenAIModel, type OpenAIModelOptions } from '../../lib/adapters/openai/model.ts';
import { ModelError } from '../../lib/core/errors.ts';
import { startScriptedOpenAIServer, type ScriptStep, type ScriptedOpenAIServer } from './scripted-openai-server.ts';

/** The API key the adapter sends unless a test gives another. */
export const TEST_API_KEY = 'sk-test-0123456789abcdef';
/** Makes the SDK's backoff short, so retry tests do not wait half a second per attempt. */
export const QUICK_RETRY = { 'retry-after-ms': '10' };

export type ModelTestOptions = { maxRetries?: number; clientTimeoutMs?: number; apiKey?: string } & Partial<OpenAIModelOptions>;

/**
 * Returns `modelAgainst(script, options)`: a scripted server and the adapter pointed at it. Call it
 * in a test file's top level or a describe block: each server is stopped after its test.
 */
export function modelsPerTest(modelName: string) {
  let servers: ScriptedOpenAIServer[] = [];
  afterEach(async () => {
    const started = servers;
    servers = [];
    for (const server of started) await server.close();
  });
  return async function modelAgainst(script: ScriptStep[], options: ModelTestOptions = {}) {
    const server = await startScriptedOpenAIServer(script);
    servers.push(server);
    const client = createOpenAIClient({
      baseURL: server.baseURL,
      apiKey: options.apiKey ?? TEST_API_KEY,
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.clientTimeoutMs ?? 10_000,
    });
    return { server, model: createOpenAIModel({ client, model: modelName, temperature: 0.7, ...options }) };
  };
}

/** The ModelError a call fails with (the test fails if it does not). */
export async function modelFailure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}
