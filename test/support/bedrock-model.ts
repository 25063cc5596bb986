/**
 * The Bedrock model adapter (lib/adapters/bedrock) through the real AWS SDK client over real HTTP/2,
 * against the Bedrock stand-in, signed with the stand-in's test credentials.
 */
import { afterEach } from 'vitest';
import { createBedrockClient } from '../../lib/adapters/bedrock/client.ts';
import { createBedrockModel, type BedrockModelOptions } from '../../lib/adapters/bedrock/model.ts';
import { STAND_IN_CREDENTIALS, STAND_IN_REGION, startBedrockStandIn, type BedrockRouter, type BedrockStandIn, type BedrockStep } from './bedrock-stand-in.ts';

export type BedrockTestOptions = Partial<Omit<BedrockModelOptions, 'client'>>;

/** Call in a test file's top level or a describe block: each stand-in is stopped after its test. */
export function bedrockModelsPerTest(modelName: string) {
  let started: BedrockStandIn[] = [];
  afterEach(async () => {
    const standIns = started;
    started = [];
    for (const standIn of standIns) await standIn.close();
  });
  return async function modelAgainst(script: BedrockStep[] | BedrockRouter, options: BedrockTestOptions = {}) {
    const standIn = await startBedrockStandIn(script);
    started.push(standIn);
    const client = createBedrockClient({ region: STAND_IN_REGION, endpoint: standIn.endpoint, credentials: STAND_IN_CREDENTIALS });
    const model = createBedrockModel({
      client,
      model: modelName,
      endpoint: standIn.endpoint,
      temperature: 0.7,
      maxRetries: 2,
      attemptTimeoutMs: 10_000,
      ...options,
    });
    return { standIn, model, client };
  };
}
