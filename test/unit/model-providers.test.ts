import { describe, expect, it } from 'vitest';
import { buildAgent } from '../../lib/build-agent.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { MODEL_NOT_CONFIGURED, ModelNotConfiguredError } from '../../lib/core/errors.ts';
import { createConfiguredModel, modelNotConfigured, modelProvider } from '../../lib/providers/configured-model.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { configFailure, parseAgentYml } from '../support/agent-yml.ts';

describe('model.provider', () => {
  it('is openai by default, and LLM_PROVIDER overrides agent.yml', () => {
    expect(parseAgentYml('').model.provider).toBe('openai');
    expect(parseAgentYml('model: { provider: openai }', { LLM_PROVIDER: 'bedrock' }).model.provider).toBe('bedrock');
  });

  it('refuses a provider it does not know, naming LLM_PROVIDER', () => {
    expect(() => parseAgentYml('', { LLM_PROVIDER: 'vertex' })).toThrow(/LLM_PROVIDER \(or model.provider\) is "vertex": expected one of openai, bedrock, demo/);
    expect(configFailure('model: { provider: vertex }')).toContain('model.provider');
  });

  it('gives Bedrock no default model, its region from model.region before AWS_REGION, and BEDROCK_ENDPOINT', () => {
    const environment = { LLM_PROVIDER: 'bedrock', AWS_REGION: 'eu-west-1', BEDROCK_ENDPOINT: 'https://vpce-1.bedrock-runtime.eu-west-1.vpce.amazonaws.com' };

    expect(parseAgentYml('', environment).model).toMatchObject({ provider: 'bedrock', name: '', region: 'eu-west-1', endpoint: environment.BEDROCK_ENDPOINT, baseURL: '' });
    expect(parseAgentYml('model: { region: us-west-2 }', environment).model.region).toBe('us-west-2');
  });

  it('reads the Bedrock keys: promptCache, a guardrail (a numeric version too) and a reasoning budget', () => {
    const model = parseAgentYml('model: { provider: bedrock, name: m, promptCache: true, guardrail: { id: gr-1, version: 3 }, reasoningBudgetTokens: 2048 }').model;

    expect(model).toMatchObject({ promptCache: true, guardrail: { id: 'gr-1', version: '3', trace: 'disabled' }, reasoningBudgetTokens: 2048 });
    expect(configFailure('model: { guardrail: { id: gr-1, version: "1", mode: block } }')).toContain('mode');
    expect(configFailure('model: { reasoningBudgetTokens: 100 }')).toContain('reasoningBudgetTokens');
    expect(configFailure('model: { region: Frankfurt }')).toContain('an AWS region such as us-east-1');
  });

  it('selects the offline stand-in with provider demo', () => {
    expect(parseAgentYml('', { LLM_PROVIDER: 'demo' }).model).toMatchObject({ provider: 'demo', name: 'demo', offlineStandIn: true });
  });
});

describe('model providers', () => {
  it.each([
    ['openai without a key or endpoint', '', {}, MODEL_NOT_CONFIGURED],
    ['bedrock without a model', '', { LLM_PROVIDER: 'bedrock', AWS_REGION: 'us-east-1' }, 'No Bedrock model is named. Set LLM_MODEL'],
    ['bedrock without a region', '', { LLM_PROVIDER: 'bedrock', LLM_MODEL: 'amazon.nova-pro-v1:0' }, 'No AWS region is set for Bedrock. Set AWS_REGION'],
  ])('says what %s lacks, and builds no model', (_case, yaml, environment, message) => {
    const settings = parseAgentYml(yaml, environment).model;

    expect(modelNotConfigured(settings, environment)).toContain(message);
    expect(createConfiguredModel(settings, { logger: silentLogger, environment })).toBeUndefined();
  });

  it.each([
    ['openai', { OPENAI_API_KEY: 'sk-test' }],
    ['bedrock', { LLM_PROVIDER: 'bedrock', LLM_MODEL: 'amazon.nova-pro-v1:0', AWS_REGION: 'us-east-1' }],
    ['demo', { LLM_MODEL: 'demo' }],
  ])('builds the %s model when it has what it needs', (name, environment) => {
    const settings = parseAgentYml('', environment).model;

    expect(modelProvider(settings).name).toBe(name);
    expect(modelNotConfigured(settings, environment)).toBeUndefined();
    expect(createConfiguredModel(settings, { logger: silentLogger, environment })).toHaveProperty('complete');
  });

  it('answers a question with the provider’s own not-configured message', async () => {
    const config = parseAgentYml('', { LLM_PROVIDER: 'bedrock', AWS_REGION: 'us-east-1' });
    const agent = buildAgent(config, { store: createMemoryConversationStore(), logger: silentLogger });

    const failure = await agent.ask({ conversationId: 'c-1', message: 'hello' }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelNotConfiguredError);
    expect((failure as Error).message).toContain('No Bedrock model is named');
    await agent.close();
  });
});
