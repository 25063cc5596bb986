/**
 * The model providers' contract: the same scripted conversations through every provider, each over
 * its own wire (the scripted OpenAI-compatible server, the Bedrock stand-in). A step says what the
 * model answers in provider-neutral terms; each harness writes it as its provider would.
 */
import { createOpenAIClient } from '../../lib/adapters/openai/client.ts';
import { createOpenAIModel } from '../../lib/adapters/openai/model.ts';
import { createBedrockClient } from '../../lib/adapters/bedrock/client.ts';
import { createBedrockModel } from '../../lib/adapters/bedrock/model.ts';
import type { ModelErrorCode } from '../../lib/core/errors.ts';
import type { ModelClient } from '../../lib/core/ports.ts';
import { converseText, converseToolUse } from './bedrock-stand-in-events.ts';
import { STAND_IN_CREDENTIALS, STAND_IN_REGION, startBedrockStandIn, type BedrockStep } from './bedrock-stand-in.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptStep } from './scripted-openai-server.ts';

/** The failures every provider must report with the same code. */
export type FailureClass = 'rate_limited' | 'auth_failed' | 'rejected_request' | 'unavailable' | 'timeout';

export const FAILURE_CODES: Record<FailureClass, ModelErrorCode> = {
  rate_limited: 'model_rate_limited',
  auth_failed: 'model_auth_failed',
  rejected_request: 'model_rejected_request',
  unavailable: 'model_unavailable',
  timeout: 'model_timeout',
};

export type ContractStep =
  | { text: string }
  | { calls: Array<{ id: string; name: string; input: Record<string, unknown> }> }
  | { failure: FailureClass }
  | { silence: true };

export interface ContractModel {
  model: ModelClient;
  /** Requests the provider's stand-in refused as the real provider would (none for a plain recorder). */
  rejected(): string[];
  requestCount(): number;
  close(): Promise<void>;
}

export interface ContractHarness {
  name: string;
  start(steps: ContractStep[], options?: { maxRetries?: number }): Promise<ContractModel>;
}

const QUICK_RETRY = { 'retry-after-ms': '5' };

export const openAIHarness: ContractHarness = {
  name: 'openai',
  async start(steps, options = {}) {
    const server = await startScriptedOpenAIServer(steps.map(openAIStep));
    const client = createOpenAIClient({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: options.maxRetries ?? 2, timeoutMs: 10_000 });
    return {
      model: createOpenAIModel({ client, model: 'gpt-4o-mini', temperature: 0.7 }),
      rejected: () => [],
      requestCount: () => server.requests.length,
      close: () => server.close(),
    };
  },
};

function openAIStep(step: ContractStep): ScriptStep {
  if ('text' in step) return textReply(step.text);
  if ('calls' in step) return toolCallsReply(step.calls.map((call) => ({ id: call.id, name: call.name, arguments: call.input })));
  if ('silence' in step || step.failure === 'timeout') return { status: 200, body: textReply('too late'), delayMs: 30_000 };
  const status = { rate_limited: 429, auth_failed: 401, rejected_request: 400, unavailable: 503 }[step.failure];
  return { status, body: { error: { message: `scripted ${step.failure}`, type: 'scripted', code: null } }, headers: QUICK_RETRY };
}

export const bedrockHarness: ContractHarness = {
  name: 'bedrock',
  async start(steps, options = {}) {
    const standIn = await startBedrockStandIn(steps.map(bedrockStep));
    const client = createBedrockClient({ region: STAND_IN_REGION, endpoint: standIn.endpoint, credentials: STAND_IN_CREDENTIALS });
    return {
      model: createBedrockModel({ client, model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', endpoint: standIn.endpoint, temperature: 0.7, maxRetries: options.maxRetries ?? 2, attemptTimeoutMs: 10_000 }),
      rejected: () => standIn.requests.flatMap((request) => (request.rejected === undefined ? [] : [request.rejected])),
      requestCount: () => standIn.requests.length,
      close: () => standIn.close(),
    };
  },
};

function bedrockStep(step: ContractStep): BedrockStep {
  if ('text' in step) return converseText(step.text);
  if ('calls' in step) return converseToolUse(step.calls.map((call) => ({ toolUseId: call.id, name: call.name, input: call.input })));
  if ('silence' in step || step.failure === 'timeout') return { silence: true };
  const [exception, status] = ({ rate_limited: ['ThrottlingException', 429], auth_failed: ['AccessDeniedException', 403], rejected_request: ['ValidationException', 400], unavailable: ['ServiceUnavailableException', 503] } as const)[step.failure];
  return { exception, status, message: `scripted ${step.failure}`, headers: QUICK_RETRY };
}

export const HARNESSES: ContractHarness[] = [openAIHarness, bedrockHarness];
