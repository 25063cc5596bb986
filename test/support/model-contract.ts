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
import type { ModelClient } from '../../lib/core/ports/model.ts';
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

/** Reasoning a provider wants back exactly as it gave it: its text and a signature over it. */
export interface ContractThinking {
  text: string;
  signature: string;
}

export type ContractStep =
  | { text: string }
  | { calls: Array<{ id: string; name: string; input: Record<string, unknown> }>; thinking?: ContractThinking }
  | { failure: FailureClass }
  | { silence: true };

export interface ContractModel {
  model: ModelClient;
  /** Requests the provider's stand-in refused as the real provider would (none for a plain recorder). */
  rejected(): string[];
  requestCount(): number;
  /** The request bodies the provider's stand-in received, in order. */
  sent(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface ContractHarness {
  /** The provider's name, as `model.provider` and the provider data of its messages name it. */
  name: string;
  start(steps: ContractStep[], options?: { maxRetries?: number }): Promise<ContractModel>;
  /** The reasoning a request body sends back with its assistant message, in this provider's wire terms. */
  thinkingIn(body: Record<string, unknown>): Partial<ContractThinking> | undefined;
}

type Json = Record<string, unknown>;
const assistantOf = (body: Json): Json | undefined => (body['messages'] as Json[] | undefined)?.find((message) => message['role'] === 'assistant');

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
      sent: () => server.requests.map((request) => request.body as Json),
      close: () => server.close(),
    };
  },
  // DeepSeek's reasoning_content on the message, Gemini's thought signature on the call.
  thinkingIn(body) {
    const assistant = assistantOf(body);
    const call = (assistant?.['tool_calls'] as Json[] | undefined)?.[0];
    const signature = ((call?.['extra_content'] as Json | undefined)?.['google'] as Json | undefined)?.['thought_signature'];
    const text = assistant?.['reasoning_content'];
    if (text === undefined && signature === undefined) return undefined;
    return { ...(typeof text === 'string' ? { text } : {}), ...(typeof signature === 'string' ? { signature } : {}) };
  },
};

function openAIStep(step: ContractStep): ScriptStep {
  if ('text' in step) return textReply(step.text);
  if ('calls' in step) {
    const reply = toolCallsReply(step.calls.map((call) => ({ id: call.id, name: call.name, arguments: call.input })));
    if (step.thinking === undefined) return reply;
    const message = ((reply['choices'] as Json[])[0]!['message']) as Json;
    message['reasoning_content'] = step.thinking.text;
    (message['tool_calls'] as Json[])[0]!['extra_content'] = { google: { thought_signature: step.thinking.signature } };
    return reply;
  }
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
      sent: () => standIn.requests.map((request) => request.body),
      close: () => standIn.close(),
    };
  },
  // A reasoningContent block with its signature, before the assistant's other blocks.
  thinkingIn(body) {
    const blocks = (assistantOf(body)?.['content'] as Json[] | undefined) ?? [];
    const reasoning = blocks.find((block) => block['reasoningContent'] !== undefined)?.['reasoningContent'] as { reasoningText?: ContractThinking } | undefined;
    return reasoning?.reasoningText;
  },
};

function bedrockStep(step: ContractStep): BedrockStep {
  if ('text' in step) return converseText(step.text);
  if ('calls' in step) {
    const reply = converseToolUse(step.calls.map((call) => ({ toolUseId: call.id, name: call.name, input: call.input })));
    if (step.thinking === undefined) return reply;
    reply.output.message.content.unshift({ reasoningContent: { reasoningText: step.thinking } } as never);
    return reply;
  }
  if ('silence' in step || step.failure === 'timeout') return { silence: true };
  const [exception, status] = ({ rate_limited: ['ThrottlingException', 429], auth_failed: ['AccessDeniedException', 403], rejected_request: ['ValidationException', 400], unavailable: ['ServiceUnavailableException', 503] } as const)[step.failure];
  return { exception, status, message: `scripted ${step.failure}`, headers: QUICK_RETRY };
}

export const HARNESSES: ContractHarness[] = [openAIHarness, bedrockHarness];
