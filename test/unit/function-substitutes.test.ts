import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { fromEnvSigningName as sdkFromEnvSigningName } from '@aws-sdk/token-providers';
import { fromEnvSigningName, nodeProvider } from '../../functions/substitutes/environment-bearer-token.ts';
import { defaultProvider } from '../../functions/substitutes/environment-credentials.ts';
import { spawn, takesEarlyStarts } from '../../functions/substitutes/linux-spawn.ts';
import LRUCache from '../../functions/substitutes/map-lru-cache.ts';
import addFormats from '../../functions/substitutes/without-ajv-formats.ts';
import { EventStreamSerde, eventStreamSerdeProvider } from '../../functions/substitutes/without-event-streams.ts';
import { GetParameterCommand, SSMClient } from '../../functions/substitutes/without-ssm.ts';
import { openAIProvider } from '../../functions/substitutes/without-openai.ts';
import { OnBehalfOf } from '../../functions/substitutes/without-on-behalf-of.ts';
import * as withoutRemote from '../../functions/substitutes/without-mcp-remote.ts';
import { ServerOAuthProvider } from '../../functions/substitutes/without-mcp-oauth.ts';
import * as remote from '../../lib/adapters/mcp/remote.ts';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const saved = { ...process.env };
afterEach(() => {
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('the credentials of the Lambda bundles', () => {
  it('are the role credentials Lambda puts in the environment', async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });

    expect(await defaultProvider()()).toMatchObject({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  it('fail, rather than look elsewhere, when the environment has none', async () => {
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;

    await expect(defaultProvider()()).rejects.toThrow(/environment/i);
  });
});

describe('the bearer tokens of a Bedrock bundle', () => {
  it('are read from AWS_BEARER_TOKEN_BEDROCK as the SDK reads them', async () => {
    process.env.AWS_BEARER_TOKEN_BEDROCK = 'bedrock-api-key';

    const token = await fromEnvSigningName({ signingName: 'bedrock' })();

    expect(token).toEqual(await sdkFromEnvSigningName({ signingName: 'bedrock' })());
    expect(token.token).toBe('bedrock-api-key');
  });

  it('are refused as the SDK refuses them when the variable is not set', async () => {
    delete process.env.AWS_BEARER_TOKEN_BEDROCK;

    await expect(fromEnvSigningName({ signingName: 'bedrock' })()).rejects.toThrow("Token not present in 'AWS_BEARER_TOKEN_BEDROCK' environment variable");
    await expect(sdkFromEnvSigningName({ signingName: 'bedrock' })()).rejects.toThrow("Token not present in 'AWS_BEARER_TOKEN_BEDROCK' environment variable");
  });

  it('never come from an SSO session, and say what a function signs with instead', async () => {
    await expect(nodeProvider()()).rejects.toThrow(/signs with its role \(SigV4\), or with a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK/);
  });
});

describe('a bundle built without the SSM client', () => {
  it('says how to deploy one that has it, if it is ever asked for SSM', () => {
    expect(() => new SSMClient()).toThrow(/modelApiKeyParameterName/);
    expect(() => new GetParameterCommand()).toThrow(/modelApiKeyParameterName/);
  });
});

describe('the endpoint cache of the Lambda bundles (a Map in place of mnemonist)', () => {
  it('keeps the most recently used entries up to its capacity, peek and has leaving recency alone', () => {
    const cache = new LRUCache<string, number>(2);
    cache.set('a', 1).set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3); // b goes
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
    expect(cache.peek('c')).toBe(3);
    cache.set('d', 4); // a (used before c was set) is the oldest; peeking at c changed nothing
    expect([cache.has('a'), cache.has('c'), cache.has('d')]).toEqual([false, true, true]);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

describe('the stdio spawn of the Lambda bundles', () => {
  it('starts a process as child_process.spawn does (cross-spawn calls it unchanged outside Windows) when none was started early for it', async () => {
    const child = spawn(process.execPath, ['--eval', "process.stdout.write('spawned')"], { stdio: ['pipe', 'pipe', 'pipe'] });
    const [output] = await once(child.stdout!, 'data');
    await once(child, 'exit');

    expect(String(output)).toBe('spawned');
    expect(takesEarlyStarts).toBe(true);
  });
});

describe('stand-ins for code the functions never run', () => {
  it('say why, if they are ever reached', () => {
    expect(() => addFormats()).toThrow(/jsonSchemaValidator/);
    expect(() => new EventStreamSerde()).toThrow(/event stream/);
    expect(() => eventStreamSerdeProvider()).toThrow(/event stream/);
    expect(openAIProvider.notConfigured({} as never, {})).toMatch(/bundled without the OpenAI-compatible provider/);
    expect(() => openAIProvider.create({} as never, {} as never)).toThrow(/bundled without the OpenAI-compatible provider/);
    expect(() => new OnBehalfOf({ name: 'crm' })).toThrow('bundled without on-behalf-of tokens: deploy again with auth.mode token-exchange or enterprise-managed for MCP server "crm" in agent.yml');
  });
});

describe('a bundle built without per-user connections', () => {
  it('has none to offer when no server is per-user, and refuses to start when one is', async () => {
    const { configuredConnections } = await import('../../functions/substitutes/without-per-user-connections.ts');
    expect(configuredConnections({ mcpServers: [{ type: 'http', auth: { mode: 'service' } }] })).toBeUndefined();
    expect(() => configuredConnections({ mcpServers: [{ type: 'http', auth: { mode: 'per-user' } }] })).toThrow(/deploy again with the auth.mode per-user server/);
  });
});

describe('a bundle without MCP over HTTP or OAuth (all its servers local)', () => {
  it('meets none of the errors only a remote transport raises, which the remote side recognises', () => {
    const expired = new StreamableHTTPError(404, 'session not found');
    const unauthorized = new UnauthorizedError('login needed');

    expect([remote.isSessionExpired(expired), remote.isUnauthorized(unauthorized)]).toEqual([true, true]);
    expect([remote.isSessionExpired(new Error('other')), remote.isUnauthorized(new Error('other'))]).toEqual([false, false]);
    expect([withoutRemote.isSessionExpired(), withoutRemote.isUnauthorized()]).toEqual([false, false]);
  });

  it('says how to deploy one with OAuth if a server\'s OAuth provider is ever made', () => {
    expect(() => new ServerOAuthProvider()).toThrow(/bundled without MCP OAuth: deploy again with the oauth block/);
  });
});
