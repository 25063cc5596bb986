/**
 * The stack under authMode=oidc: a Lambda TOKEN authorizer (functions/oidc-authorizer.ts, its own
 * function with the provider in its environment) on every route, no Cognito user pool, and the
 * context keys' checks (infra/context.ts).
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { settingsFromContext } from '../../infra/context.ts';
import { environmentOf, logicalId, templateFor } from '../support/stack-template.ts';

const OIDC = { authMode: 'oidc' as const, oidcIssuer: 'https://login.example.com/oauth2/default', oidcAudience: 'api://mcp-agent' };

type Properties = Record<string, any>;

const methodsOf = (template: Template): Properties[] =>
  Object.values(template.findResources('AWS::ApiGateway::Method')).map((method) => method.Properties as Properties).filter((method) => method.HttpMethod !== 'OPTIONS');

describe('McpAgentStack with authMode=oidc', () => {
  const template = templateFor(OIDC);

  it('creates the authorizer function with the provider in its environment, small and short', () => {
    const functionId = logicalId(template, 'AWS::Lambda::Function', 'AuthorizationOidcAuthorizerFunction');
    const properties = template.toJSON().Resources[functionId].Properties as Properties;
    expect(properties.Environment.Variables).toMatchObject({ OIDC_ISSUER: OIDC.oidcIssuer, OIDC_AUDIENCE: OIDC.oidcAudience });
    expect(properties.MemorySize).toBe(256);
    expect(properties.Timeout).toBe(10);
  });

  it('is a TOKEN authorizer on the Authorization header, cached per token for five minutes, invoking that function', () => {
    const functionId = logicalId(template, 'AWS::Lambda::Function', 'AuthorizationOidcAuthorizerFunction');
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: '^[Bb]earer [-0-9A-Za-z._~+/]+=*$',
      AuthorizerResultTtlInSeconds: 300,
    });
    const authorizer = Object.values(template.findResources('AWS::ApiGateway::Authorizer'))[0]!.Properties as Properties;
    expect(JSON.stringify(authorizer.AuthorizerUri)).toContain(functionId);
    template.hasResourceProperties('AWS::Lambda::Permission', { FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] }, Principal: 'apigateway.amazonaws.com' });
  });

  it('guards every route with it', () => {
    const authorizerId = logicalId(template, 'AWS::ApiGateway::Authorizer', 'AuthorizationAuthorizer');
    const methods = methodsOf(template);
    expect(methods.length).toBeGreaterThan(10);
    for (const method of methods) expect({ type: method.AuthorizationType, authorizer: method.AuthorizerId }).toEqual({ type: 'CUSTOM', authorizer: { Ref: authorizerId } });
  });

  it('answers a request without a valid token 401 unauthenticated with WWW-Authenticate: Bearer', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      ResponseParameters: Match.objectLike({ 'gatewayresponse.header.WWW-Authenticate': "'Bearer'" }),
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"code": "unauthenticated"') },
    });
  });

  it('creates no Cognito user pool, and tells the agent functions AUTH_MODE=oidc and the provider', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
    for (const name of ['Stream', 'Worker', 'HealthAndFallbacks']) {
      expect(environmentOf(template, name)).toMatchObject({ AUTH_MODE: 'oidc', OIDC_ISSUER: OIDC.oidcIssuer, OIDC_AUDIENCE: OIDC.oidcAudience });
    }
  });
});

describe('authMode=oidc context keys', () => {
  const context = (values: Record<string, unknown>) => ({ tryGetContext: (key: string) => values[key] });

  it('reads the issuer and the audience', () => {
    expect(settingsFromContext(context({ authMode: 'oidc', oidcIssuer: OIDC.oidcIssuer, oidcAudience: OIDC.oidcAudience }))).toMatchObject(OIDC);
  });

  it.each([
    [{ authMode: 'oidc', oidcAudience: 'a' }, 'context authMode=oidc needs oidcIssuer'],
    [{ authMode: 'oidc', oidcIssuer: OIDC.oidcIssuer }, 'context authMode=oidc needs oidcAudience'],
    [{ authMode: 'oidc', oidcIssuer: 'http://login.example.com', oidcAudience: 'a' }, 'context oidcIssuer must be an https URL'],
    [{ authMode: 'oidc', oidcIssuer: 'http://localhost:8080/realms/dev', oidcAudience: 'a' }, 'context oidcIssuer must be an https URL'],
    [{ authMode: 'oidc', oidcIssuer: 'https://login.example.com/?x=1', oidcAudience: 'a' }, 'context oidcIssuer must have no query or fragment'],
    [{ authMode: 'cognito', oidcIssuer: OIDC.oidcIssuer }, 'context oidcIssuer and oidcAudience are only used with authMode=oidc'],
    [{ oidcAudience: 'a' }, 'context oidcIssuer and oidcAudience are only used with authMode=oidc'],
  ])('refuses %j', (values, message) => {
    expect(() => settingsFromContext(context(values))).toThrow(message);
  });
});
