/**
 * The A2A door's pieces that `npm start` cannot show (test/e2e/a2a-client.test.ts covers the
 * protocol with the SDK's clients): the card's security scheme under each auth mode, its URL behind
 * API Gateway's stage or a custom domain, agent.yml's `a2a`, and the door being served only when on.
 */
import { AgentCard } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { a2aDoorIsOn } from '../../infra/a2a-door.ts';
import type { AuthMode } from '../../lib/config/environment.ts';
import { configuredFrontDoors } from '../../lib/front-doors/configured.ts';
import { agentCard } from '../../lib/front-doors/a2a/agent-card.ts';
import { legacyAgentCard } from '../../lib/front-doors/a2a/legacy-card.ts';
import { readTaskId, taskIdOf } from '../../lib/front-doors/a2a/task-id.ts';
import { fromApiGatewayEvent } from '../../lib/http/lambda/api-gateway.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { configFailure, parseAgentYml } from '../support/agent-yml.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const SETTINGS = { name: 'order-desk', description: 'Cancels orders.' };
const request = (headers: Record<string, string>, basePath?: string): HttpRequest => ({
  method: 'GET',
  path: '/.well-known/agent-card.json',
  headers,
  body: undefined,
  ...(basePath ? { basePath } : {}),
});
const DEPLOYED = request({ host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'x-forwarded-proto': 'https' }, '/prod');

describe('the A2A agent card', () => {
  it.each<[AuthMode, unknown, unknown]>([
    ['none', {}, []],
    ['iam', { sigv4: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'AWS4-HMAC-SHA256' }) } }, [{ schemes: { sigv4: {} } }]],
    ['cognito', { cognito: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'bearer', bearerFormat: 'JWT' }) } }, [{ schemes: { cognito: {} } }]],
    ['oidc', { oidc: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'bearer', bearerFormat: 'JWT' }) } }, [{ schemes: { oidc: {} } }]],
  ])('names the security scheme of authMode %s, and requires it', (authMode, schemes, requirements) => {
    const card = AgentCard.toJSON(agentCard(SETTINGS, { authMode }, DEPLOYED)) as Record<string, unknown>;
    expect(card.securitySchemes ?? {}).toEqual(schemes);
    expect(card.securityRequirements ?? []).toEqual(requirements);
  });

  it('gives v0.3 clients the same scheme in their OpenAPI-style shape', () => {
    const card = legacyAgentCard(agentCard(SETTINGS, { authMode: 'cognito' }, DEPLOYED));
    expect(card.securitySchemes).toEqual({ cognito: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: expect.any(String) } });
    expect(card.security).toEqual([{ cognito: [] }]);
  });

  it('points at /a2a on the URL the client used, API Gateway’s stage included', () => {
    const card = agentCard(SETTINGS, { authMode: 'iam' }, DEPLOYED);
    expect(card.supportedInterfaces.map((entry) => entry.url)).toEqual(['https://abc123.execute-api.eu-west-1.amazonaws.com/prod/a2a', 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/a2a']);
  });

  it('points at agent.yml’s a2a.url when it names one (a custom domain)', () => {
    const card = agentCard({ ...SETTINGS, url: 'https://agents.example.com/orders/' }, { authMode: 'iam' }, DEPLOYED);
    expect(card.supportedInterfaces[0]!.url).toBe('https://agents.example.com/orders/a2a');
  });

  it('describes one skill, ask, when agent.yml lists none', () => {
    expect(agentCard(SETTINGS, { authMode: 'none' }, request({ host: 'localhost:3000' })).skills).toEqual([
      { id: 'ask', name: 'Ask', description: 'Cancels orders.', tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
    ]);
  });
});

describe('the stage before the contract’s path', () => {
  const event = (path: string, fullPath: string) => ({
    httpMethod: 'GET', path, headers: {}, queryStringParameters: null, body: null, isBase64Encoded: false, requestContext: { path: fullPath },
  });
  const context = { getRemainingTimeInMillis: () => 60_000 };
  const identity = { authMode: 'none' as const, ownerFrom: 'role-session' as const };

  it('is what API Gateway’s requestContext.path has before the path', () => {
    expect(fromApiGatewayEvent(event('/a2a', '/prod/a2a'), context, identity).basePath).toBe('/prod');
  });

  it('is absent when the path is all there is', () => {
    expect(fromApiGatewayEvent(event('/a2a', '/a2a'), context, identity)).not.toHaveProperty('basePath');
  });
});

describe('task ids', () => {
  it('name the conversation and the turn, and nothing else reads as one', () => {
    expect(readTaskId(taskIdOf('conversation_1-a', 12))).toEqual({ conversationId: 'conversation_1-a', turn: 12 });
    for (const id of ['conversation', 'conversation.0', 'a.b.1', '.1', 'conversation.1x']) expect(readTaskId(id)).toBeUndefined();
  });
});

describe('agent.yml a2a', () => {
  it('is off by default, and the door is not served', () => {
    const config = parseAgentYml('');
    expect(config.a2a.enabled).toBe(false);
    expect(configuredFrontDoors(config).map((door) => door.name)).toEqual(['openai-compatible', 'native']);
  });

  it('turns on with its defaults from `a2a: true`, before the native door', () => {
    const config = parseAgentYml('a2a: true');
    expect(config.a2a).toMatchObject({ enabled: true, name: 'mcp-agent', description: expect.stringContaining('MCP servers') });
    expect(configuredFrontDoors(config).map((door) => door.name)).toEqual(['openai-compatible', 'a2a', 'native']);
  });

  it('refuses a skill id the card could not carry, naming the key', () => {
    expect(configFailure('a2a: { skills: [{ id: "two words", name: A, description: B }] }')).toMatch(/a2a\.skills\.0\.id: a skill id uses letters/);
  });
});

describe('a2aDoorIsOn (the synth: routes and bundle)', () => {
  it.each([
    ['', false],
    ['a2a: false', false],
    ['a2a: { enabled: false, name: x }', false],
    ['a2a: true', true],
    ['a2a: { name: order-desk }', true],
    ['a2a: "${A2A:-false}"', true],
  ])('reads %j as %s', (text, on) => {
    const file = join(temporaryFolder('a2a-yml-'), 'agent.yml');
    writeFileSync(file, text);
    expect(a2aDoorIsOn(file)).toBe(on);
  });
});
