/**
 * With `model.provider: bedrock` the stack keeps no model key and lets the functions that run turns
 * invoke exactly the configured model: the model, or the inference profile and the foundation models
 * behind it, only through that profile. Read from the synthesized template, in a fixed account and
 * region so every ARN is plain text.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { bedrockGrants } from '../../infra/bedrock-access.ts';
import { settingsFromContext } from '../../infra/context.ts';
import type { AgentSettings } from '../../infra/settings.ts';
import { buildStack, environmentOf, logicalId } from '../support/stack-template.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const ENV = { account: '123456789012', region: 'eu-west-1' };
const TARGET = { region: 'eu-west-1', account: '123456789012', partition: 'aws' };
const CLAUDE = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

describe('bedrockGrants', () => {
  it('grants a foundation model in the region it is called in', () => {
    expect(bedrockGrants({ ...TARGET, model: CLAUDE })).toEqual([{ resources: [`arn:aws:bedrock:eu-west-1::foundation-model/${CLAUDE}`] }]);
  });

  it('grants a geographic inference profile, and its model in each region of the geography only through it', () => {
    const profile = `arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.${CLAUDE}`;
    const [profileGrant, modelGrant] = bedrockGrants({ ...TARGET, model: `eu.${CLAUDE}` });
    expect(profileGrant).toEqual({ resources: [profile] });
    expect(modelGrant!.throughProfile).toBe(profile);
    expect(modelGrant!.resources).toContain(`arn:aws:bedrock:eu-central-1::foundation-model/${CLAUDE}`);
    expect(modelGrant!.resources).toContain(`arn:aws:bedrock:eu-west-3::foundation-model/${CLAUDE}`);
    expect(modelGrant!.resources.every((arn) => /^arn:aws:bedrock:eu-[a-z]+-\d::foundation-model\//.test(arn))).toBe(true);
  });

  it('takes the regions a profile routes to from modelRegions when given', () => {
    const [, modelGrant] = bedrockGrants({ ...TARGET, model: `us.${CLAUDE}`, routesTo: ['us-east-1', 'us-west-2'] });
    expect(modelGrant!.resources).toEqual([`arn:aws:bedrock:us-east-1::foundation-model/${CLAUDE}`, `arn:aws:bedrock:us-west-2::foundation-model/${CLAUDE}`]);
  });

  it('grants a global profile, its model in the calling region and its model without a region, only through it', () => {
    const profile = `arn:aws:bedrock:eu-west-1:123456789012:inference-profile/global.${CLAUDE}`;
    expect(bedrockGrants({ ...TARGET, model: `global.${CLAUDE}` })).toEqual([
      { resources: [profile] },
      { resources: [`arn:aws:bedrock:eu-west-1::foundation-model/${CLAUDE}`, `arn:aws:bedrock:::foundation-model/${CLAUDE}`], throughProfile: profile },
    ]);
  });

  it.each([
    ['a foundation model ARN', `arn:aws:bedrock:us-east-1::foundation-model/${CLAUDE}`],
    ['a provisioned model ARN', 'arn:aws:bedrock:eu-west-1:123456789012:provisioned-model/abc123'],
  ])('grants %s as it is', (_kind, arn) => {
    expect(bedrockGrants({ ...TARGET, model: arn })).toEqual([{ resources: [arn] }]);
  });

  it('grants an inference profile named by ARN in the ARN’s region, with its geography’s models', () => {
    const arn = `arn:aws:bedrock:us-east-2:123456789012:inference-profile/us.${CLAUDE}`;
    const [profileGrant, modelGrant] = bedrockGrants({ ...TARGET, model: arn });
    expect(profileGrant).toEqual({ resources: [arn] });
    expect(modelGrant).toMatchObject({ throughProfile: arn });
    expect(modelGrant!.resources).toContain(`arn:aws:bedrock:us-east-2::foundation-model/${CLAUDE}`);
  });

  it('grants an application inference profile, and any model only through it (its models are not in its ARN)', () => {
    const arn = 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3';
    expect(bedrockGrants({ ...TARGET, model: arn })).toEqual([{ resources: [arn] }, { resources: ['arn:aws:bedrock:*::foundation-model/*'], throughProfile: arn }]);
  });
});

/** The statements of the one inline policy on a function's role. */
function statementsOf(template: Template, name: string): Array<{ Action: unknown; Resource: unknown; Condition?: unknown }> {
  const roleId = logicalId(template, 'AWS::IAM::Role', `Functions${name}FunctionServiceRole`);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]));
  expect(policies).toHaveLength(1);
  return policies[0]!.Properties.PolicyDocument.Statement;
}

/** The ARNs as text: the partition is the one token left in a stack of fixed account and region. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) return join[1].map((part) => (JSON.stringify(part) === JSON.stringify({ Ref: 'AWS::Partition' }) ? 'aws' : plain(part))).join(join[0]);
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, plain(entry)]));
  }
  return value;
}

const bedrockStatements = (template: Template, name: string) =>
  statementsOf(template, name).filter((statement) => JSON.stringify(statement.Action).includes('bedrock:')).map((statement) => plain(statement) as typeof statement);

describe('McpAgentStack with model.provider bedrock', () => {
  const settings: AgentSettings = { modelProvider: 'bedrock', modelName: `eu.${CLAUDE}` };
  const template = Template.fromStack(buildStack(settings, ENV));

  it('creates no model-key secret and tells the functions the provider, never a key', () => {
    expect(Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((id) => id.startsWith('ModelApiKey'))).toEqual([]);
    for (const name of ['Stream', 'Worker', 'HealthAndFallbacks']) {
      const environment = environmentOf(template, name);
      expect(environment).toMatchObject({ LLM_PROVIDER: 'bedrock', LLM_MODEL: `eu.${CLAUDE}` });
      expect(Object.keys(environment).filter((key) => key.startsWith('OPENAI_API_KEY'))).toEqual([]);
    }
    expect(Object.keys(template.toJSON().Outputs)).not.toContain('ModelApiKeySecretArn');
  });

  it.each(['Stream', 'Worker'])('lets %s invoke the profile, and the foundation models only through it', (name) => {
    const profile = `arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.${CLAUDE}`;
    const statements = bedrockStatements(template, name);
    expect(statements).toHaveLength(2);
    expect(statements[0]).toEqual({ Action: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'], Effect: 'Allow', Resource: profile });
    expect(statements[1]).toMatchObject({ Action: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'], Effect: 'Allow', Condition: { StringEquals: { 'bedrock:InferenceProfileArn': profile } } });
    expect((statements[1]!.Resource as string[]).every((arn) => arn.endsWith(`::foundation-model/${CLAUDE}`) && arn.startsWith('arn:aws:bedrock:eu-'))).toBe(true);
  });

  it('gives the health function no model access, and no function a wildcard action', () => {
    expect(bedrockStatements(template, 'HealthAndFallbacks')).toEqual([]);
    const everyAction = ['Stream', 'Worker', 'HealthAndFallbacks'].flatMap((name) => statementsOf(template, name).flatMap((statement) => [statement.Action].flat()));
    expect(everyAction.filter((action) => String(action).includes('*'))).toEqual([]);
  });

  it('reads the provider and model from agent.yml when the context does not name them', () => {
    const file = path.join(temporaryFolder('bedrock-agent-'), 'agent.yml');
    writeFileSync(file, `model:\n  provider: bedrock\n  name: "\${LLM_MODEL:-${CLAUDE}}"\n  region: us-west-2\n`);
    const fromFile = Template.fromStack(buildStack({ agentConfig: file }, ENV));
    expect(bedrockStatements(fromFile, 'Stream')).toEqual([
      { Action: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'], Effect: 'Allow', Resource: `arn:aws:bedrock:us-west-2::foundation-model/${CLAUDE}` },
    ]);
    expect(environmentOf(fromFile, 'Stream')).not.toHaveProperty('LLM_PROVIDER');
  });

  it('bundles the functions for Bedrock, whether the context or agent.yml says so', () => {
    const file = path.join(temporaryFolder('bedrock-agent-'), 'agent.yml');
    writeFileSync(file, `model:\n  provider: bedrock\n  name: ${CLAUDE}\n`);
    expect(buildStack(settings, ENV).functionBundle).toMatchObject({ modelProvider: 'bedrock', ssmClient: false });
    expect(buildStack({ agentConfig: file }, ENV).functionBundle).toMatchObject({ modelProvider: 'bedrock', ssmClient: false });
  });

  it('stops the synth when no model is named', () => {
    const file = path.join(temporaryFolder('bedrock-agent-'), 'agent.yml');
    writeFileSync(file, 'model:\n  provider: bedrock\n');
    expect(() => buildStack({ agentConfig: file }, ENV)).toThrow(/no model is named: set model.name in agent.yml or the context key modelName/);
  });

  it('leaves an OpenAI-compatible deployment as it was: a model-key secret, no Bedrock statement', () => {
    const openai = Template.fromStack(buildStack({}, ENV));
    expect(Object.keys(openai.findResources('AWS::SecretsManager::Secret')).some((id) => id.startsWith('ModelApiKey'))).toBe(true);
    expect(bedrockStatements(openai, 'Stream')).toEqual([]);
    expect(buildStack({}, ENV).functionBundle).toMatchObject({ modelProvider: 'openai' });
  });
});

describe('the Bedrock context keys', () => {
  const reader = (context: Record<string, unknown>) => ({ tryGetContext: (key: string) => context[key] });

  it('reads modelProvider and modelRegions', () => {
    expect(settingsFromContext(reader({ modelProvider: 'bedrock', modelRegions: 'us-east-1,us-west-2' }))).toEqual({ modelProvider: 'bedrock', modelRegions: ['us-east-1', 'us-west-2'] });
  });

  it.each([
    [{ modelProvider: 'anthropic' }, /context modelProvider must be one of openai, bedrock, demo, not "anthropic"/],
    [{ modelRegions: 'us-east-1,mars' }, /context modelRegions: each region must be an AWS region such as eu-west-1, not "mars"/],
  ])('refuses %j', (context, message) => {
    expect(() => settingsFromContext(reader(context))).toThrow(message);
  });
});
