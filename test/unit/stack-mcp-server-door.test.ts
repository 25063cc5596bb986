/**
 * The MCP server front door in a deployment: /mcp is routed to the streaming function, and the
 * MCP SDK's server is bundled, only where agent.yml turns mcpServerDoor on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { functionSubstitutes } from '../../infra/bundling.ts';
import { usesMcpServerDoor } from '../../infra/mcp-server-door.ts';
import { logicalId, templateFor } from '../support/stack-template.ts';

const WITHOUT_DOOR = fileURLToPath(new URL('../../functions/substitutes/without-mcp-server-door.ts', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'stack-mcp-door-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function agentYml(name: string, text: string): string {
  const file = join(folder, name);
  writeFileSync(file, text);
  return file;
}

function mcpResources(agentConfig: string) {
  const template = templateFor({ agentConfig });
  const resources = template.findResources('AWS::ApiGateway::Resource', { Properties: { PathPart: 'mcp' } });
  return { template, ids: Object.keys(resources) };
}

describe('the MCP server door in the stack', () => {
  it('routes POST /mcp to the streaming function when agent.yml turns the door on', () => {
    const { template, ids } = mcpResources(agentYml('on.yml', 'mcpServerDoor: true\n'));
    expect(ids).toHaveLength(1);
    const streamFunction = logicalId(template, 'AWS::Lambda::Function', 'FunctionsStreamFunction');
    const post = template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'POST', ResourceId: { Ref: ids[0] } } });
    expect(Object.values(post)).toHaveLength(1);
    expect(JSON.stringify(Object.values(post)[0])).toContain(streamFunction);
    expect(JSON.stringify(Object.values(post)[0])).toContain('STREAM');
  });

  it('has no /mcp route by default', () => {
    expect(mcpResources(agentYml('off.yml', 'maxRounds: 4\n')).ids).toEqual([]);
  });

  describe('the OAuth protected resource metadata', () => {
    function metadataGets(agentConfig: string, authMode: 'none' | 'iam' | 'cognito') {
      const template = templateFor({ agentConfig, authMode });
      const resources = template.findResources('AWS::ApiGateway::Resource', { Properties: { PathPart: 'oauth-protected-resource' } });
      const ids = Object.keys(resources);
      const children = Object.keys(template.findResources('AWS::ApiGateway::Resource', { Properties: { PathPart: 'mcp', ParentId: { Ref: ids[0] ?? 'none' } } }));
      const gets = [...ids, ...children].map((id) => Object.values(template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'GET', ResourceId: { Ref: id } } })));
      const unauthorized = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: 'UNAUTHORIZED' } }));
      const challenge = unauthorized[0]?.Properties.ResponseParameters['gatewayresponse.header.WWW-Authenticate'];
      return { template, ids, children, gets, challenge };
    }

    it('is routed with no authorizer, at both well-known paths, when the door is on under cognito', () => {
      const { template, ids, children, gets, challenge } = metadataGets(agentYml('cognito-on.yml', 'mcpServerDoor: true\n'), 'cognito');
      expect(ids).toHaveLength(1);
      expect(children).toHaveLength(1);
      for (const get of gets) {
        expect(get).toHaveLength(1);
        expect(get[0]!.Properties.AuthorizationType).toBe('NONE');
        expect(get[0]!.Properties).not.toHaveProperty('AuthorizerId');
      }
      // /mcp itself keeps the Cognito authorizer
      const mcp = Object.keys(template.findResources('AWS::ApiGateway::Resource', { Properties: { PathPart: 'mcp', ParentId: { 'Fn::GetAtt': [logicalId(template, 'AWS::ApiGateway::RestApi', 'ApiRestApi'), 'RootResourceId'] } } }));
      const post = Object.values(template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'POST', ResourceId: { Ref: mcp[0] } } }));
      expect(post[0]!.Properties.AuthorizationType).toBe('COGNITO_USER_POOLS');
      // and the functions learn the pool, whose issuer the door names
      const stream = template.findResources('AWS::Lambda::Function')[logicalId(template, 'AWS::Lambda::Function', 'FunctionsStreamFunction')]!;
      expect(stream.Properties.Environment.Variables).toHaveProperty('COGNITO_USER_POOL_ID');
      // API Gateway's own 401 (no token: the function never sees the request) points at the metadata
      const challengeText = JSON.stringify(challenge);
      expect(challengeText).toContain(`"'Bearer resource_metadata=\\"https://`);
      expect(challengeText).toContain(`/prod/.well-known/oauth-protected-resource/mcp\\"'"`);
    });

    it('is not routed under iam or none, nor with the door off', () => {
      for (const [name, yaml, authMode] of [['iam-on.yml', 'mcpServerDoor: true\n', 'iam'], ['none-on.yml', 'mcpServerDoor: true\n', 'none'], ['cognito-off.yml', 'maxRounds: 4\n', 'cognito']] as const) {
        const { ids, challenge } = metadataGets(agentYml(name, yaml), authMode);
        expect(ids).toEqual([]);
        expect(challenge).toBeUndefined();
      }
    });
  });

  it('reads the switch as agent.yml writes it', () => {
    expect(usesMcpServerDoor(agentYml('a.yml', 'mcpServerDoor: true\n'))).toBe(true);
    expect(usesMcpServerDoor(agentYml('b.yml', 'mcpServerDoor: { toolName: ask_orders }\n'))).toBe(true);
    expect(usesMcpServerDoor(agentYml('c.yml', 'mcpServerDoor: { enabled: false }\n'))).toBe(false);
    expect(usesMcpServerDoor(agentYml('d.yml', 'mcpServerDoor: ${MCP_DOOR}\n'))).toBe(true);
    expect(usesMcpServerDoor(agentYml('e.yml', 'maxRounds: 4\n'))).toBe(false);
  });

  it('bundles the MCP SDK’s server only when the door is on', () => {
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false })).toMatchObject({ '#mcp-server-door': WITHOUT_DOOR });
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, mcpServerDoor: true })).not.toHaveProperty('#mcp-server-door');
  });
});
