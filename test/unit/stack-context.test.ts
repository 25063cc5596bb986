/** The deployment settings as read from CDK context (`-c key=value` or cdk.json). */
import { describe, expect, it } from 'vitest';
import { settingsFromContext } from '../../infra/context.ts';

const context = (values: Record<string, unknown>) => ({ tryGetContext: (key: string) => values[key] });

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mcp-agent/model-api-key-AbC123';
const USER_POOL_ARN = 'arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_AbCdEf123';

describe('settingsFromContext', () => {
  it('leaves every setting to the stack defaults when no context is given', () => {
    expect(settingsFromContext(context({}))).toEqual({});
  });

  it('reads command-line strings into typed settings', () => {
    expect(settingsFromContext(context({
      authMode: 'cognito',
      userPoolArn: USER_POOL_ARN,
      modelApiKeySecretArn: SECRET_ARN,
      modelBaseUrl: 'https://api.deepseek.com/v1',
      modelName: 'deepseek-chat',
      removalPolicy: 'destroy',
      corsAllowOrigins: 'https://app.example.com, http://localhost:5173',
      throttleRateLimit: '12.5',
      throttleBurstLimit: '30',
      maxReceiveCount: '5',
      agentConfig: 'config/agent.yml',
    }))).toEqual({
      authMode: 'cognito',
      userPoolArn: USER_POOL_ARN,
      modelApiKeySecretArn: SECRET_ARN,
      modelBaseUrl: 'https://api.deepseek.com/v1',
      modelName: 'deepseek-chat',
      removalPolicy: 'destroy',
      corsAllowOrigins: ['https://app.example.com', 'http://localhost:5173'],
      throttleRateLimit: 12.5,
      throttleBurstLimit: 30,
      maxReceiveCount: 5,
      agentConfig: 'config/agent.yml',
    });
  });

  it('reads JSON values from cdk.json as they are', () => {
    expect(settingsFromContext(context({ corsAllowOrigins: ['*'], maxReceiveCount: 4, modelApiKeyParameterName: '/mcp-agent/key' }))).toEqual({
      corsAllowOrigins: ['*'],
      maxReceiveCount: 4,
      modelApiKeyParameterName: '/mcp-agent/key',
    });
  });

  it('reads a JSON list of origins given on the command line', () => {
    expect(settingsFromContext(context({ corsAllowOrigins: '["https://a.example.com","https://b.example.com"]' })).corsAllowOrigins)
      .toEqual(['https://a.example.com', 'https://b.example.com']);
  });

  it.each([
    [{ authMode: 'jwt' }, /context authMode must be one of none, iam, cognito, oidc, not "jwt"/],
    [{ removalPolicy: 'snapshot' }, /context removalPolicy must be one of retain, destroy/],
    [{ userPoolArn: USER_POOL_ARN }, /userPoolArn is only used with authMode=cognito/],
    [{ authMode: 'cognito', userPoolArn: 'eu-west-1_AbCdEf123' }, /context userPoolArn must be a Cognito user pool ARN/],
    [{ modelApiKeySecretArn: SECRET_ARN, modelApiKeyParameterName: '/key' }, /modelApiKeySecretArn and modelApiKeyParameterName are alternatives/],
    [{ modelApiKeySecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:model-api-key' }, /complete ARN, with its six-character suffix/],
    [{ modelApiKeyParameterName: 'has spaces' }, /context modelApiKeyParameterName must be an SSM parameter name/],
    [{ modelBaseUrl: 'api.openai.com' }, /context modelBaseUrl must be an http\(s\) URL/],
    [{ otelExporterEndpoint: 'localhost:4318' }, /context otelExporterEndpoint must be an http\(s\) URL/],
    [{ throttleRateLimit: '0' }, /context throttleRateLimit must be a number at least 1, not "0"/],
    [{ throttleBurstLimit: '2.5' }, /context throttleBurstLimit must be a whole number at least 1/],
    [{ maxReceiveCount: 'three' }, /context maxReceiveCount must be a whole number from 1 to 1000, not "three"/],
    [{ workerMaxConcurrency: '1' }, /context workerMaxConcurrency must be a whole number from 2 to 1000, not "1"/],
    [{ corsAllowOrigins: 'app.example.com' }, /each origin must be \* or scheme:\/\/host\[:port\]/],
    [{ corsAllowOrigins: '[not json' }, /context corsAllowOrigins is not valid JSON/],
    [{ modelName: 42 }, /context modelName must be a string, not 42/],
    [{ ownerFrom: 'session' }, /context ownerFrom must be one of principal, role-session, not "session"/],
    [{ authMode: 'cognito', ownerFrom: 'principal' }, /ownerFrom is only used with authMode=iam/],
    [{ eventSources: 'aws.events' }, /context eventSources: "aws.events" cannot be sent by callers/],
    [{ eventSources: 'mcp-agent' }, /context eventSources: "mcp-agent" is the stack's own source/],
    [{ eventSources: 'queue' }, /context eventSources: "queue" is a reserved sender name/],
    [{ eventSources: 'has spaces' }, /context eventSources: each source must be/],
    [{ ownerSources: 'com.example.orders' }, /context ownerSources: "com.example.orders" is not among eventSources/],
    [{ ownerSources: 'everyone' }, /context ownerSources: "everyone" is not among eventSources/],
  ])('stops the synth on %j with a message naming the key', (values, message) => {
    expect(() => settingsFromContext(context(values))).toThrow(message);
  });
});

describe('workerMaxConcurrency', () => {
  it('is read from a -c string', () => {
    expect(settingsFromContext(context({ workerMaxConcurrency: '25' }))).toEqual({ workerMaxConcurrency: 25 });
  });
});

describe('who may reach whose conversations', () => {
  it('reads ownerFrom, the event sources the rule accepts and the senders trusted to name an owner', () => {
    expect(settingsFromContext(context({
      ownerFrom: 'principal',
      eventSources: 'com.example.orders, com.example.billing',
      ownerSources: 'com.example.orders,queue,invoke',
    }))).toEqual({
      ownerFrom: 'principal',
      eventSources: ['com.example.orders', 'com.example.billing'],
      ownerSources: ['com.example.orders', 'queue', 'invoke'],
    });
  });

  it('reads the lists as JSON arrays from cdk.json', () => {
    expect(settingsFromContext(context({ eventSources: ['com.example.orders'], ownerSources: ['com.example.orders'] }))).toEqual({
      eventSources: ['com.example.orders'],
      ownerSources: ['com.example.orders'],
    });
  });
});
