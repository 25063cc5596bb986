/**
 * Least privilege, read from the synthesized template: each function's role allows exactly the
 * actions it performs, on exactly its resources, for each source of the model API key; and the key
 * itself never reaches the template.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentSettings } from '../../infra/settings.ts';
import { buildStack, logicalId, templateFor } from '../support/stack-template.ts';


/** The statements of the one inline policy on a function's role. */
function statementsOf(template: Template, name: string): unknown[] {
  const roleId = logicalId(template, 'AWS::IAM::Role', `Functions${name}FunctionServiceRole`);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]));
  expect(policies).toHaveLength(1);
  return policies[0]!.Properties.PolicyDocument.Statement;
}

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mcp-agent/model-api-key-AbC123';
const PARAMETER_NAME = '/mcp-agent/model-api-key';
const XRAY = { Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Effect: 'Allow', Resource: '*' };

const keySources: [string, AgentSettings][] = [
  ['a secret the stack creates', {}],
  ['a given secret', { modelApiKeySecretArn: SECRET_ARN }],
  ['an SSM parameter', { modelApiKeyParameterName: PARAMETER_NAME }],
];

/** Every function reads the deployment's HMAC key at cold start. */
const readHmacKeyStatement = (template: Template) => ({
  Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: { Ref: logicalId(template, 'AWS::SecretsManager::Secret', 'HmacKey') },
});

/** The statement allowing to read the key, as each source should render it. */
function readKeyStatement(template: Template, settings: AgentSettings): unknown {
  if (settings.modelApiKeyParameterName !== undefined) {
    return {
      Action: 'ssm:GetParameter', Effect: 'Allow',
      Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ssm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':parameter/mcp-agent/model-api-key']] },
    };
  }
  const resource = settings.modelApiKeySecretArn ?? { Ref: logicalId(template, 'AWS::SecretsManager::Secret', 'ModelApiKey') };
  return { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: resource };
}

describe.each(keySources)('McpAgentStack permissions with the model API key in %s', (_source, settings) => {
  it('lets the stream function run turns and delete conversations on the table, and read the key', () => {
    const template = templateFor(settings);
    const tableId = logicalId(template, 'AWS::DynamoDB::Table', 'Conversations');
    expect(statementsOf(template, 'Stream')).toEqual([
      XRAY,
      readKeyStatement(template, settings),
      readHmacKeyStatement(template),
      {
        Action: ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
        Effect: 'Allow', Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
      },
    ]);
  });

  it('lets the worker consume both queues, run turns (no BatchWriteItem), announce them on its bus only, and read the key', () => {
    const template = templateFor(settings);
    const tableId = logicalId(template, 'AWS::DynamoDB::Table', 'Conversations');
    const queueId = logicalId(template, 'AWS::SQS::Queue', 'AsyncTurnsQueue');
    const eventQueueId = logicalId(template, 'AWS::SQS::Queue', 'AsyncTurnsEventQueue');
    const busId = logicalId(template, 'AWS::Events::EventBus', 'AsyncTurnsBus');
    const consume = (id: string) => ({
      Action: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
      Effect: 'Allow', Resource: { 'Fn::GetAtt': [id, 'Arn'] },
    });
    expect(statementsOf(template, 'Worker')).toEqual([
      XRAY,
      consume(queueId),
      consume(eventQueueId),
      readKeyStatement(template, settings),
      readHmacKeyStatement(template),
      { Action: ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], Effect: 'Allow', Resource: { 'Fn::GetAtt': [tableId, 'Arn'] } },
      { Action: 'events:PutEvents', Effect: 'Allow', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } },
    ]);
  });

  it('lets the health function read the keys and nothing else', () => {
    const template = templateFor(settings);
    expect(statementsOf(template, 'HealthAndFallbacks')).toEqual([XRAY, readKeyStatement(template, settings), readHmacKeyStatement(template)]);
  });

  it('names the key source, never the key, in every function environment', () => {
    const template = templateFor(settings);
    const expected = settings.modelApiKeyParameterName !== undefined
      ? { OPENAI_API_KEY_PARAMETER_NAME: PARAMETER_NAME }
      : { OPENAI_API_KEY_SECRET_ARN: settings.modelApiKeySecretArn ?? { Ref: logicalId(template, 'AWS::SecretsManager::Secret', 'ModelApiKey') } };
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      expect(variables).toMatchObject(expected);
      expect(Object.keys(variables).filter((name) => name.includes('API_KEY'))).toEqual(Object.keys(expected));
      expect(JSON.stringify(variables)).not.toMatch(/resolve:secretsmanager|resolve:ssm/);
    }
  });
});

describe('McpAgentStack roles', () => {
  it.each(['Stream', 'Worker', 'HealthAndFallbacks'])('gives %s only the basic execution managed policy (writing its logs)', (name) => {
    const template = templateFor();
    const role = template.findResources('AWS::IAM::Role')[logicalId(template, 'AWS::IAM::Role', `Functions${name}FunctionServiceRole`)]!;
    expect(role.Properties.ManagedPolicyArns).toEqual([
      { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']] },
    ]);
  });

  it('grants no wildcard action anywhere, and a wildcard resource only to X-Ray', () => {
    for (const [, settings] of keySources) {
      for (const policy of Object.values(templateFor(settings).findResources('AWS::IAM::Policy'))) {
        for (const statement of policy.Properties.PolicyDocument.Statement) {
          expect([statement.Action].flat().filter((action: string) => action.includes('*'))).toEqual([]);
          if (statement.Resource === '*') expect(statement.Action).toEqual(XRAY.Action);
        }
      }
    }
  });

  it('creates the key secret holding only an empty placeholder, and kept by default', () => {
    const template = templateFor();
    const secret = template.findResources('AWS::SecretsManager::Secret')[logicalId(template, 'AWS::SecretsManager::Secret', 'ModelApiKey')]!;
    expect(secret.Properties.SecretString).toBe('{"apiKey":""}');
    expect(secret.DeletionPolicy).toBe('Retain');
    expect(templateFor({ removalPolicy: 'destroy' }).findResources('AWS::SecretsManager::Secret')).toSatisfy(
      (secrets: Record<string, { DeletionPolicy: string }>) => Object.values(secrets).every((created) => created.DeletionPolicy === 'Delete'),
    );
  });

  it.each([['a given secret', { modelApiKeySecretArn: SECRET_ARN }], ['an SSM parameter', { modelApiKeyParameterName: PARAMETER_NAME }]])('creates no model key secret with %s (only the HMAC key)', (_source, settings) => {
    const template = templateFor(settings);
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    logicalId(template, 'AWS::SecretsManager::Secret', 'HmacKey');
  });
});

describe('McpAgentStack with a model API key in the shell that synthesizes it', () => {
  const saved = process.env.OPENAI_API_KEY;
  afterEach(() => {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
  });

  it('keeps the key out of the template', () => {
    process.env.OPENAI_API_KEY = 'sk-live-must-never-reach-the-template';
    const template = Template.fromStack(buildStack());
    expect(JSON.stringify(template.toJSON())).not.toContain('sk-live-must-never-reach-the-template');
  });
});
