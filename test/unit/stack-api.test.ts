/**
 * The REST API of the stack: routes, streaming integrations, CORS, throttling, access logs and the
 * auth switch, read from the synthesized template (asset bundling skipped).
 */
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { templateFor, stackFor, logicalId } from '../support/stack-template.ts';

type Properties = Record<string, any>;
const USER_POOL_ARN = 'arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_AbCdEf123';

/** Every method of the API as "VERB /path", resolved through the Resource tree. */
function methods(template: Template): Map<string, Properties> {
  const resources = template.findResources('AWS::ApiGateway::Resource');
  const pathOf = (reference: Properties): string => {
    if (!('Ref' in reference)) return '';
    const { ParentId, PathPart } = resources[reference.Ref]!.Properties;
    return `${pathOf(ParentId)}/${PathPart}`;
  };
  const result = new Map<string, Properties>();
  for (const method of Object.values(template.findResources('AWS::ApiGateway::Method'))) {
    const path = pathOf(method.Properties.ResourceId) || '/';
    result.set(`${method.Properties.HttpMethod} ${path}`, method.Properties);
  }
  return result;
}

/** The OpenAI-compatible front door's routes, streamed from the stream function like the conversation routes. */
const OPENAI_ROUTES = ['GET /v1/models', 'GET /v1/models/{model}', 'POST /v1/chat/completions'];
/** The UI toolkit doors' routes (agent.yml uiStreams), streamed too. */
const UI_ROUTES = ['POST /ui/ai-sdk/chat', 'POST /ui/ag-ui'];
const ROUTES = ['POST /conversations', 'GET /conversations/{conversationId}', 'DELETE /conversations/{conversationId}', 'POST /conversations/{conversationId}/messages', 'POST /conversations/{conversationId}/approvals', 'GET /conversations/{conversationId}/turns/{turn}/trace', 'GET /conversations/{conversationId}/files', 'GET /conversations/{conversationId}/files/{name}', 'GET /health', 'GET /memory', 'DELETE /memory', 'DELETE /memory/{noteId}', ...OPENAI_ROUTES, ...UI_ROUTES];
/** Every other method and path goes to the health-and-fallbacks function, so the contract answers 404/405 itself. */
const FALLBACKS = [
  'ANY /', 'ANY /conversations', 'ANY /conversations/{conversationId}', 'ANY /conversations/{conversationId}/messages', 'ANY /conversations/{conversationId}/approvals', 'ANY /conversations/{conversationId}/turns', 'ANY /conversations/{conversationId}/turns/{turn}', 'ANY /conversations/{conversationId}/turns/{turn}/trace', 'ANY /conversations/{conversationId}/files', 'ANY /conversations/{conversationId}/files/{name}', 'ANY /health', 'ANY /{proxy+}',
  'ANY /v1', 'ANY /v1/models', 'ANY /v1/models/{model}', 'ANY /v1/chat/completions', 'ANY /ui/ai-sdk/chat', 'ANY /ui/ag-ui', 'ANY /memory', 'ANY /memory/{noteId}',
];
const routesOf = (template: Template): Map<string, Properties> => new Map([...methods(template)].filter(([route]) => !route.startsWith('OPTIONS')));

describe('McpAgentStack REST API', () => {
  it('is a Regional REST API', () => {
    templateFor().hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
  });

  it('serves exactly the HTTP contract routes, and sends every other method and path to the contract', () => {
    expect([...routesOf(templateFor()).keys()].sort()).toEqual([...ROUTES, ...FALLBACKS].sort());
  });

  it('routes the A2A front door (its card and JSON-RPC, streamed) only when agent.yml turns a2a on', () => {
    const template = templateFor({ agentConfig: 'test/fixtures/a2a-agent.yml' });
    const streamId = logicalId(template, 'AWS::Lambda::Function', 'FunctionsStreamFunction');
    const routes = routesOf(template);
    for (const route of ['GET /.well-known/agent-card.json', 'POST /a2a']) {
      expect(JSON.stringify(routes.get(route)?.Integration)).toContain(streamId);
      expect(routes.get(route)?.Integration.ResponseTransferMode).toBe('STREAM');
    }
    expect([...routes.keys()].filter((route) => /a2a|well-known/.test(route)).sort()).toEqual(['ANY /.well-known/agent-card.json', 'ANY /a2a', 'GET /.well-known/agent-card.json', 'POST /a2a']);
    expect([...routesOf(templateFor()).keys()].filter((route) => /a2a|well-known/.test(route))).toEqual([]);
  });

  it.each(FALLBACKS)('answers %s from the health-and-fallbacks function (the contract\'s 404 and 405), buffered', (route) => {
    const template = templateFor();
    const healthAndFallbacksId = logicalId(template, 'AWS::Lambda::Function', 'FunctionsHealthAndFallbacksFunction');
    const integration = routesOf(template).get(route)!.Integration;
    expect(integration).not.toHaveProperty('ResponseTransferMode');
    expect(JSON.stringify(integration.Uri)).toContain(JSON.stringify({ 'Fn::GetAtt': [healthAndFallbacksId, 'Arn'] }));
  });

  it.each([
    ['MISSING_AUTHENTICATION_TOKEN', 'unauthenticated', '401'],
    ['UNAUTHORIZED', 'unauthenticated', undefined],
    ['ACCESS_DENIED', 'forbidden', undefined],
    ['INVALID_SIGNATURE', 'invalid_signature', undefined],
    ['EXPIRED_TOKEN', 'expired_token', undefined],
    ['THROTTLED', 'throttled', undefined],
  ])('answers API Gateway\'s %s with the contract code %s', (type, code, status) => {
    templateFor().hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      ResponseTemplates: { 'application/json': `{"error": {"code": "${code}", "message": $context.error.messageString}}` },
      ...(status ? { StatusCode: status } : {}),
    });
  });

  it('answers the errors API Gateway makes itself with the contract\'s error body', () => {
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      templateFor().hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        ResponseTemplates: { 'application/json': '{"error": {"code": "$context.error.responseType", "message": $context.error.messageString}}' },
      });
    }
  });

  it.each(ROUTES.filter((route) => route.includes('conversations') || route.includes('/v1/') || route.includes('memory')))('streams %s from the stream function for up to 15 minutes', (route) => {
    const template = templateFor();
    const streamId = logicalId(template, 'AWS::Lambda::Function', 'FunctionsStreamFunction');
    const integration = routesOf(template).get(route)!.Integration;
    expect(integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST', ResponseTransferMode: 'STREAM', TimeoutInMillis: 900_000 });
    const uri = JSON.stringify(integration.Uri);
    expect(uri).toContain(JSON.stringify({ 'Fn::GetAtt': [streamId, 'Arn'] }));
    expect(uri).toContain('/response-streaming-invocations');
  });

  it('answers GET /health from the health-and-fallbacks function, buffered, within the default timeout', () => {
    const template = templateFor();
    const healthAndFallbacksId = logicalId(template, 'AWS::Lambda::Function', 'FunctionsHealthAndFallbacksFunction');
    const integration = routesOf(template).get('GET /health')!.Integration;
    expect(integration).toMatchObject({ Type: 'AWS_PROXY' });
    expect(integration).not.toHaveProperty('ResponseTransferMode');
    expect(integration).not.toHaveProperty('TimeoutInMillis');
    expect(JSON.stringify(integration.Uri)).toContain(JSON.stringify({ 'Fn::GetAtt': [healthAndFallbacksId, 'Arn'] }));
    expect(JSON.stringify(integration.Uri)).toContain('/invocations');
  });

  it('lets API Gateway invoke each function only for its own routes', () => {
    const template = templateFor();
    const streamId = logicalId(template, 'AWS::Lambda::Function', 'FunctionsStreamFunction');
    const healthAndFallbacksId = logicalId(template, 'AWS::Lambda::Function', 'FunctionsHealthAndFallbacksFunction');
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).map((permission) => permission.Properties);
    for (const permission of permissions) expect(permission).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
    const routesFor = (id: string) => permissions.filter((permission) => permission.FunctionName['Fn::GetAtt'][0] === id).map((permission) => JSON.stringify(permission.SourceArn));
    // The stream function only for its own methods on the conversation, /v1 and memory routes; never for ANY.
    expect(routesFor(streamId).length).toBeGreaterThan(0);
    expect(routesFor(streamId).every((arn) => /\/(POST|GET|DELETE)\/(conversations|v1|ui|memory)/.test(arn))).toBe(true);
    expect(routesFor(streamId).some((arn) => arn.includes('/POST/v1/chat/completions'))).toBe(true);
    expect(routesFor(healthAndFallbacksId).some((arn) => arn.includes('/GET/health'))).toBe(true);
    expect(routesFor(healthAndFallbacksId).every((arn) => arn.includes('/GET/health') || arn.includes('/*/'))).toBe(true);
    expect(routesFor(streamId).length + routesFor(healthAndFallbacksId).length).toBe(permissions.length);
  });

  it('throttles the stage at 20 requests per second with bursts of 40 by default', () => {
    templateFor().hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 })],
    });
  });

  it('takes the throttling limits from the settings', () => {
    templateFor({ throttleRateLimit: 100, throttleBurstLimit: 250 }).hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 250 })],
    });
  });

  it('writes JSON access logs to a log group kept for one month', () => {
    const template = templateFor();
    const logGroupId = logicalId(template, 'AWS::Logs::LogGroup', 'ApiAccessLogs');
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      AccessLogSetting: { DestinationArn: { 'Fn::GetAtt': [logGroupId, 'Arn'] }, Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"') },
    });
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
  });

  it('outputs its URL once', () => {
    const outputs = Object.values(templateFor().toJSON().Outputs as Record<string, { Value: unknown }>);
    expect(outputs.filter((output) => JSON.stringify(output.Value).includes('execute-api'))).toHaveLength(1);
  });
});

describe('McpAgentStack CORS', () => {
  const preflight = (template: Template, path: string): Properties => methods(template).get(`OPTIONS ${path}`)!;

  it.each(['/', '/conversations', '/conversations/{conversationId}', '/conversations/{conversationId}/messages', '/conversations/{conversationId}/approvals', '/conversations/{conversationId}/turns/{turn}/trace', '/health', '/v1/models', '/v1/chat/completions'])('answers preflights on %s without credentials, allowing the SigV4, token, SSE and front door headers', (path) => {
    const method = preflight(templateFor(), path);
    expect(method.AuthorizationType).toBe('NONE');
    const headers = method.Integration.IntegrationResponses[0].ResponseParameters;
    expect(headers['method.response.header.Access-Control-Allow-Headers']).toBe("'Content-Type,Accept,Authorization,X-Amz-Date,X-Amz-Security-Token,X-Amz-Content-Sha256,X-Amz-User-Agent,X-Api-Key,X-Conversation-Id,Idempotency-Key,Last-Event-ID,A2A-Version'");
    expect(headers['method.response.header.Access-Control-Allow-Methods']).toBe("'GET,POST,DELETE,OPTIONS'");
    expect(headers['method.response.header.Access-Control-Allow-Origin']).toBe("'*'");
  });

  it('allows only the configured origin', () => {
    const template = templateFor({ corsAllowOrigins: ['https://app.example.com'] });
    const headers = preflight(template, '/conversations').Integration.IntegrationResponses[0].ResponseParameters;
    expect(headers['method.response.header.Access-Control-Allow-Origin']).toBe("'https://app.example.com'");
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'DEFAULT_4XX',
      ResponseParameters: { 'gatewayresponse.header.Access-Control-Allow-Origin': "'https://app.example.com'" },
    });
  });

  it('tells the API functions which origins may read their responses, and not the worker', () => {
    const template = templateFor({ corsAllowOrigins: ['https://app.example.com', 'https://admin.example.com'] });
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as Properties[];
    const originsOf = (description: string) =>
      functions.find((resource) => resource.Properties.Description.includes(description))!.Properties.Environment.Variables.CORS_ALLOW_ORIGINS;
    expect(originsOf('conversation routes')).toBe('https://app.example.com,https://admin.example.com');
    expect(originsOf('GET /health')).toBe('https://app.example.com,https://admin.example.com');
    expect(originsOf('asynchronous turns')).toBeUndefined();
  });

  it.each(['DEFAULT_4XX', 'DEFAULT_5XX'])('puts the CORS origin on the %s responses API Gateway makes itself', (type) => {
    templateFor().hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      ResponseParameters: { 'gatewayresponse.header.Access-Control-Allow-Origin': "'*'" },
    });
  });
});

describe('McpAgentStack auth switch', () => {
  const authModes = (template: Template): string[] =>
    Object.values(template.findResources('AWS::Lambda::Function')).map((fn) => fn.Properties.Environment.Variables.AUTH_MODE);

  it.each([
    [{}, 'AWS_IAM', 'iam'],
    [{ authMode: 'iam' as const }, 'AWS_IAM', 'iam'],
    [{ authMode: 'none' as const }, 'NONE', 'none'],
    [{ authMode: 'cognito' as const }, 'COGNITO_USER_POOLS', 'cognito'],
  ])('with %j, protects every route with %s and tells every function AUTH_MODE=%s', (settings, authorizationType, authMode) => {
    const template = templateFor(settings);
    for (const [route, method] of routesOf(template)) expect({ route, type: method.AuthorizationType }).toEqual({ route, type: authorizationType });
    expect(authModes(template)).toEqual([authMode, authMode, authMode]);
  });

  it('warns at synth time that authMode none leaves the API open', () => {
    Annotations.fromStack(stackFor({ authMode: 'none' })).hasWarning('/Agent', Match.stringLikeRegexp('authMode=none'));
    expect(Annotations.fromStack(stackFor()).findWarning('*', Match.stringLikeRegexp('authMode=none'))).toEqual([]);
  });

  it('creates a user pool without self sign-up, a public app client, and their outputs when none is given', () => {
    const template = templateFor({ authMode: 'cognito' });
    const poolId = logicalId(template, 'AWS::Cognito::UserPool', 'AuthorizationUserPool');
    const clientId = logicalId(template, 'AWS::Cognito::UserPoolClient', 'AuthorizationUserPoolClient');
    template.hasResourceProperties('AWS::Cognito::UserPool', { AdminCreateUserConfig: { AllowAdminCreateUserOnly: true } });
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      UserPoolId: { Ref: poolId },
      GenerateSecret: false,
      ExplicitAuthFlows: Match.arrayWith(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH']),
      AllowedOAuthFlowsUserPoolClient: false,
    });
    expect(Object.values(template.findResources('AWS::Cognito::UserPoolClient'))[0]!.Properties).not.toHaveProperty('CallbackURLs');
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', { Type: 'COGNITO_USER_POOLS', ProviderARNs: [{ 'Fn::GetAtt': [poolId, 'Arn'] }] });
    template.hasOutput('UserPoolId', { Value: { Ref: poolId } });
    template.hasOutput('UserPoolClientId', { Value: { Ref: clientId } });
    template.hasResource('AWS::Cognito::UserPool', { DeletionPolicy: 'Retain' });
    templateFor({ authMode: 'cognito', removalPolicy: 'destroy' }).hasResource('AWS::Cognito::UserPool', { DeletionPolicy: 'Delete' });
  });

  it('attaches the Cognito authorizer to every route', () => {
    const template = templateFor({ authMode: 'cognito' });
    const authorizerId = logicalId(template, 'AWS::ApiGateway::Authorizer', 'AuthorizationAuthorizer');
    for (const method of routesOf(template).values()) expect(method.AuthorizerId).toEqual({ Ref: authorizerId });
  });

  it('uses an existing user pool when userPoolArn is given, creating none', () => {
    const template = templateFor({ authMode: 'cognito', userPoolArn: USER_POOL_ARN });
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', { Type: 'COGNITO_USER_POOLS', ProviderARNs: [USER_POOL_ARN] });
    expect(template.toJSON().Outputs).not.toHaveProperty('UserPoolId');
  });

  it.each([{}, { authMode: 'none' as const }])('creates no authorizer or user pool with %j', (settings) => {
    const template = templateFor(settings);
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 0);
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
  });
});
