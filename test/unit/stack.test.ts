/**
 * The stack's resources and settings, read from the synthesized CloudFormation template (asset
 * bundling skipped; test/integration/synth.test.ts builds the real bundles).
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { environmentOf, templateFor } from '../support/stack-template.ts';


type Resource = { Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };

/** The one resource of `type` whose logical id starts with `prefix`. */
function resource(template: Template, type: string, prefix: string): [string, Resource] {
  const matches = Object.entries(template.findResources(type)).filter(([id]) => id.startsWith(prefix));
  expect(matches.map(([id]) => id)).toHaveLength(1);
  return matches[0] as [string, Resource];
}

describe('McpAgentStack conversation table', () => {
  it('keys turns by conversation (pk, string) and turn number (sk, number), on demand, with TTL and point-in-time recovery', () => {
    templateFor().hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('is retained and protected from deletion by default', () => {
    const [, table] = resource(templateFor(), 'AWS::DynamoDB::Table', 'Conversations');
    expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain', Properties: { DeletionProtectionEnabled: true } });
  });

  it('is deleted with the stack, unprotected, under removalPolicy destroy', () => {
    const [, table] = resource(templateFor({ removalPolicy: 'destroy' }), 'AWS::DynamoDB::Table', 'Conversations');
    expect(table).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete', Properties: { DeletionProtectionEnabled: false } });
  });
});

describe('McpAgentStack functions', () => {
  it.each([
    ['Stream', 1024, 900],
    ['Worker', 1024, 900],
    ['HealthAndFallbacks', 512, 29],
  ])('runs %s on Node.js 22, ARM64, traced, with %i MB and %i s', (name, memory, timeout) => {
    const [, fn] = resource(templateFor(), 'AWS::Lambda::Function', `Functions${name}Function`);
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: memory,
      Timeout: timeout,
      TracingConfig: { Mode: 'Active' },
    });
  });

  it.each(['Stream', 'Worker', 'HealthAndFallbacks'])('logs %s to its own log group, kept for one month', (name) => {
    const template = templateFor();
    const [logGroupId, logGroup] = resource(template, 'AWS::Logs::LogGroup', `Functions${name}Logs`);
    expect(logGroup).toMatchObject({ DeletionPolicy: 'Retain', Properties: { RetentionInDays: 30 } });
    const [, fn] = resource(template, 'AWS::Lambda::Function', `Functions${name}Function`);
    expect(fn.Properties.LoggingConfig).toEqual({ LogGroup: { Ref: logGroupId } });
  });

  it('deletes the log groups with the stack under removalPolicy destroy', () => {
    const [, logGroup] = resource(templateFor({ removalPolicy: 'destroy' }), 'AWS::Logs::LogGroup', 'FunctionsStreamLogs');
    expect(logGroup.DeletionPolicy).toBe('Delete');
  });

  it.each(['Stream', 'Worker', 'HealthAndFallbacks'])('points %s at the bundled configuration and demo server, with Powertools names', (name) => {
    // No --enable-source-maps (no maps are deployed); AsyncLocalStorage over AsyncContextFrame (infra/function-runtime.ts).
    expect(environmentOf(templateFor(), name).NODE_OPTIONS).toBe('--experimental-async-context-frame');
    expect(environmentOf(templateFor(), name)).toMatchObject({
      AGENT_CONFIG: '/var/task/agent.json',
      DEMO_MCP_SERVER: 'demo-server.mjs',
      POWERTOOLS_SERVICE_NAME: 'mcp-agent',
      POWERTOOLS_METRICS_NAMESPACE: 'McpAgent',
      AUTH_MODE: 'iam',
      OWNER_FROM: 'role-session',
    });
    expect(environmentOf(templateFor({ ownerFrom: 'principal' }), name).OWNER_FROM).toBe('principal');
  });

  it('names the table to the functions that use it, and the event bus to the worker only', () => {
    const template = templateFor();
    const [tableId] = resource(template, 'AWS::DynamoDB::Table', 'Conversations');
    const [busId] = resource(template, 'AWS::Events::EventBus', 'AsyncTurnsBus');
    expect(environmentOf(template, 'Stream').CONVERSATIONS_TABLE).toEqual({ Ref: tableId });
    expect(environmentOf(template, 'Worker').CONVERSATIONS_TABLE).toEqual({ Ref: tableId });
    expect(environmentOf(template, 'Worker').EVENT_BUS_NAME).toEqual({ Ref: busId });
    expect(environmentOf(template, 'HealthAndFallbacks')).not.toHaveProperty('CONVERSATIONS_TABLE');
    expect(environmentOf(template, 'HealthAndFallbacks')).not.toHaveProperty('EVENT_BUS_NAME');
    expect(environmentOf(template, 'Stream')).not.toHaveProperty('EVENT_BUS_NAME');
  });

  it('names the queue to the worker, which shortens the wait of the records it failed', () => {
    const template = templateFor();
    const [queueId] = resource(template, 'AWS::SQS::Queue', 'AsyncTurnsQueue');
    expect(environmentOf(template, 'Worker').QUEUE_URL).toEqual({ Ref: queueId });
    expect(environmentOf(template, 'Stream')).not.toHaveProperty('QUEUE_URL');
    expect(environmentOf(template, 'HealthAndFallbacks')).not.toHaveProperty('QUEUE_URL');
  });

  it('passes the model endpoint and name when given, and leaves agent.yml in charge otherwise', () => {
    const configured = templateFor({ modelBaseUrl: 'https://api.deepseek.com/v1', modelName: 'deepseek-chat' });
    for (const name of ['Stream', 'Worker', 'HealthAndFallbacks']) {
      expect(environmentOf(configured, name)).toMatchObject({ OPENAI_BASE_URL: 'https://api.deepseek.com/v1', LLM_MODEL: 'deepseek-chat' });
      expect(environmentOf(templateFor(), name)).not.toHaveProperty('OPENAI_BASE_URL');
      expect(environmentOf(templateFor(), name)).not.toHaveProperty('LLM_MODEL');
    }
  });

  it('gives every function the OTLP endpoint when otelExporterEndpoint is set, and none otherwise', () => {
    const traced = templateFor({ otelExporterEndpoint: 'http://localhost:4318' });
    for (const name of ['Stream', 'Worker', 'HealthAndFallbacks']) {
      expect(environmentOf(traced, name)).toMatchObject({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' });
      expect(environmentOf(templateFor(), name)).not.toHaveProperty('OTEL_EXPORTER_OTLP_ENDPOINT');
    }
  });

  it('stops the synth when the agent.yml to bundle does not exist', () => {
    expect(() => templateFor({ agentConfig: 'missing/agent.yml' })).toThrow(/agentConfig: .*missing\/agent\.yml does not exist/);
  });
});

describe('McpAgentStack asynchronous turns', () => {
  it('encrypts the three queues with SQS-managed keys and denies every request without TLS', () => {
    const template = templateFor();
    for (const prefix of ['AsyncTurnsQueue', 'AsyncTurnsEventQueue', 'AsyncTurnsDeadLetterQueue']) {
      const [queueId, queue] = resource(template, 'AWS::SQS::Queue', prefix);
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      const [, policy] = resource(template, 'AWS::SQS::QueuePolicy', `${prefix}Policy`);
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual({
        Action: 'sqs:*', Effect: 'Deny', Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
      });
    }
  });

  it('gives a message six worker timeouts plus the batching window before it is redelivered', () => {
    const [, queue] = resource(templateFor(), 'AWS::SQS::Queue', 'AsyncTurnsQueue');
    expect(queue.Properties.VisibilityTimeout).toBe(6 * 900 + 2);
  });

  it.each([
    [{}, 5],
    [{ maxReceiveCount: 3 }, 3],
  ])('moves a message to the dead-letter queue after maxReceiveCount receives (%j)', (settings, count) => {
    const template = templateFor(settings);
    const [deadLetterId, deadLetterQueue] = resource(template, 'AWS::SQS::Queue', 'AsyncTurnsDeadLetterQueue');
    const [, queue] = resource(template, 'AWS::SQS::Queue', 'AsyncTurnsQueue');
    expect(queue.Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: count });
    expect(deadLetterQueue.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  it('feeds the worker from both queues in batches of five within two seconds, reporting partial batch failures', () => {
    const template = templateFor();
    const [workerId] = resource(template, 'AWS::Lambda::Function', 'FunctionsWorkerFunction');
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
    for (const prefix of ['AsyncTurnsQueue', 'AsyncTurnsEventQueue']) {
      const [queueId] = resource(template, 'AWS::SQS::Queue', prefix);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
        FunctionName: { Ref: workerId },
        BatchSize: 5,
        MaximumBatchingWindowInSeconds: 2,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 10 },
      });
    }
  });

  it('caps the worker\'s concurrency from the settings', () => {
    templateFor({ workerMaxConcurrency: 3 }).hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 3 } });
  });

  it('routes AgentTurnRequested and AgentApprovalDecided events of the stack\'s own source only, by default, to the event queue, and undeliverable ones to the dead-letter queue', () => {
    const template = templateFor();
    const [busId] = resource(template, 'AWS::Events::EventBus', 'AsyncTurnsBus');
    const [eventQueueId] = resource(template, 'AWS::SQS::Queue', 'AsyncTurnsEventQueue');
    const [deadLetterId] = resource(template, 'AWS::SQS::Queue', 'AsyncTurnsDeadLetterQueue');
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'Agent-events' });
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: busId },
      EventPattern: Match.exact({ source: ['mcp-agent'], 'detail-type': ['AgentTurnRequested', 'AgentApprovalDecided'] }),
      Targets: [{ Arn: { 'Fn::GetAtt': [eventQueueId, 'Arn'] }, DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] } }, Id: Match.anyValue() }],
    });
  });

  it('routes the events of the sources the operator lists, and no other (a foreign source is dropped)', () => {
    const [, rule] = resource(templateFor({ eventSources: ['com.example.orders', 'com.example.billing'] }), 'AWS::Events::Rule', 'AsyncTurnsTurnRequested');
    expect(rule.Properties.EventPattern).toEqual({ source: ['mcp-agent', 'com.example.orders', 'com.example.billing'], 'detail-type': ['AgentTurnRequested', 'AgentApprovalDecided'] });
    expect(rule.Properties.EventPattern.source).not.toContain('com.attacker.tools');
  });

  it('lets only that rule send to the event queue: every other sender is denied, whatever its IAM policies allow', () => {
    const template = templateFor();
    const [eventQueueId] = resource(template, 'AWS::SQS::Queue', 'AsyncTurnsEventQueue');
    const [ruleId] = resource(template, 'AWS::Events::Rule', 'AsyncTurnsTurnRequested');
    const [, policy] = resource(template, 'AWS::SQS::QueuePolicy', 'AsyncTurnsEventQueuePolicy');
    const statements = policy.Properties.PolicyDocument.Statement;
    expect(statements.filter((statement: { Effect: string }) => statement.Effect === 'Allow')).toEqual([{
      Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
      Effect: 'Allow',
      Principal: { Service: 'events.amazonaws.com' },
      Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
      Resource: { 'Fn::GetAtt': [eventQueueId, 'Arn'] },
    }]);
    expect(statements).toContainEqual({
      Sid: 'OnlyTheRuleSends',
      Action: 'sqs:SendMessage',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Condition: { ArnNotEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
      Resource: { 'Fn::GetAtt': [eventQueueId, 'Arn'] },
    });
  });

  it('lets no one but the account\'s IAM policies send to the queue (no rule, no service)', () => {
    const [, policy] = resource(templateFor(), 'AWS::SQS::QueuePolicy', 'AsyncTurnsQueuePolicy');
    expect(policy.Properties.PolicyDocument.Statement.filter((statement: { Effect: string }) => statement.Effect === 'Allow')).toEqual([]);
  });

  it('reserves the stack\'s own source on the bus for the worker, so consumers can trust AgentTurnCompleted', () => {
    const template = templateFor();
    const [busId] = resource(template, 'AWS::Events::EventBus', 'AsyncTurnsBus');
    const [workerRoleId] = resource(template, 'AWS::IAM::Role', 'FunctionsWorkerFunctionServiceRole');
    template.hasResourceProperties('AWS::Events::EventBusPolicy', {
      EventBusName: { Ref: busId },
      Statement: {
        Sid: 'cdk-OnlyTheWorkerAnnounces',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'events:PutEvents',
        Resource: { 'Fn::GetAtt': [busId, 'Arn'] },
        Condition: { StringEquals: { 'events:source': 'mcp-agent' }, ArnNotEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': [workerRoleId, 'Arn'] } } },
      },
    });
  });

  it.each([
    [{}, 'mcp-agent'],
    [{ eventSources: ['com.example.orders'] }, ['mcp-agent', 'com.example.orders']],
  ])('refuses turn requests and decisions from unlisted sources at the bus (%j)', (settings, sources) => {
    const template = templateFor(settings);
    const [busId] = resource(template, 'AWS::Events::EventBus', 'AsyncTurnsBus');
    template.hasResourceProperties('AWS::Events::EventBusPolicy', {
      EventBusName: { Ref: busId },
      Statement: {
        Sid: 'cdk-OnlyListedSourcesRequestTurns',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'events:PutEvents',
        Resource: { 'Fn::GetAtt': [busId, 'Arn'] },
        Condition: { StringEquals: { 'events:detail-type': ['AgentTurnRequested', 'AgentApprovalDecided'] }, StringNotEquals: { 'events:source': sources } },
      },
    });
    template.resourceCountIs('AWS::Events::EventBusPolicy', 2);
  });

  it('tells the worker which senders may name an owner (none by default) and which queue only the rule writes to', () => {
    const template = templateFor();
    const [eventQueueId] = resource(template, 'AWS::SQS::Queue', 'AsyncTurnsEventQueue');
    expect(environmentOf(template, 'Worker')).toMatchObject({ OWNER_SOURCES: '', EVENT_QUEUE_URL: { Ref: eventQueueId }, EVENT_QUEUE_ARN: { 'Fn::GetAtt': [eventQueueId, 'Arn'] } });
    const trusting = templateFor({ eventSources: ['com.example.orders'], ownerSources: ['com.example.orders', 'queue'] });
    expect(environmentOf(trusting, 'Worker').OWNER_SOURCES).toBe('com.example.orders,queue');
    for (const name of ['Stream', 'HealthAndFallbacks']) {
      expect(environmentOf(template, name)).not.toHaveProperty('OWNER_SOURCES');
      expect(environmentOf(template, name)).not.toHaveProperty('EVENT_QUEUE_ARN');
    }
  });
});

describe('McpAgentStack HMAC key', () => {
  it('generates a random 64-character secret, kept by default, that no output or environment shows', () => {
    const template = templateFor();
    const [secretId, secret] = resource(template, 'AWS::SecretsManager::Secret', 'HmacKey');
    expect(secret.Properties).toMatchObject({ GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false } });
    expect(secret.Properties).not.toHaveProperty('SecretString');
    expect(secret.DeletionPolicy).toBe('Retain');
    for (const name of ['Stream', 'Worker', 'HealthAndFallbacks']) expect(environmentOf(template, name).HMAC_KEY_SECRET_ARN).toEqual({ Ref: secretId });
    expect(JSON.stringify(template.toJSON().Outputs)).not.toContain(secretId);
  });
});

describe('McpAgentStack outputs', () => {
  it('outputs the API URL, table, queues, bus and worker, once each', () => {
    const outputs = templateFor().toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs).sort()).toEqual(['ApiUrl', 'DeadLetterQueueUrl', 'EventBusName', 'ModelApiKeySecretArn', 'QueueUrl', 'TableName', 'WorkerFunctionName']);
    expect(JSON.stringify(outputs.ApiUrl!.Value)).toMatch(/execute-api/);
  });

  it('outputs the secret to fill in only when the stack created it', () => {
    const [secretId] = resource(templateFor(), 'AWS::SecretsManager::Secret', 'ModelApiKey');
    templateFor().hasOutput('ModelApiKeySecretArn', { Value: { Ref: secretId } });
    const given = templateFor({ modelApiKeyParameterName: '/mcp-agent/model-api-key' }).toJSON().Outputs;
    expect(given).not.toHaveProperty('ModelApiKeySecretArn');
  });
});
