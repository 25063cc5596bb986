/**
 * `model.auth: sigv4`: the OpenAI adapter signs its Chat Completions requests with SigV4 for
 * Bedrock's OpenAI-compatible endpoints instead of sending a key, with credentials from the default
 * AWS chain (here the environment). The scripted server checks each signature as Bedrock does
 * (test/support/sigv4-check.ts) and answers a bad one with Bedrock's 403.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openAIProvider } from '../../lib/providers/openai.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ModelDelta, ModelRequest } from '../../lib/core/ports/model.ts';
import { parseAgentYml } from '../support/agent-yml.ts';
import { modelFailure, QUICK_RETRY } from '../support/openai-model.ts';
import { getWeather } from '../support/original-tools.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptRouter, type ScriptStep, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import type { SigningCredentials } from '../support/sigv4-check.ts';

const REGION = 'us-west-2';
const CREDENTIALS: SigningCredentials = { accessKeyId: 'AKIDSIGV4TEST0000000', secretAccessKey: 'sigv4-test-secret-0123456789' };
const SESSION_TOKEN = 'sigv4-test-session-token';
const MODEL = 'openai.gpt-oss-120b-1:0';

const REQUEST: ModelRequest = { messages: [{ role: 'user', content: 'What is the weather in Shanghai?' }], tools: [getWeather] };

let servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  for (const server of servers) await server.close();
  servers = [];
});

/** A server that answers only requests signed for `bedrock` in REGION with CREDENTIALS, and the adapter configured for it. */
async function signedModelAgainst(script: ScriptStep[] | ScriptRouter, environment: { secretAccessKey?: string } = {}) {
  const server = await startScriptedOpenAIServer(script, { signedFor: { credentials: CREDENTIALS, service: 'bedrock', region: REGION } });
  servers.push(server);
  // The default credential chain reads them from the environment, as a Lambda's role gives them.
  vi.stubEnv('AWS_ACCESS_KEY_ID', CREDENTIALS.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', environment.secretAccessKey ?? CREDENTIALS.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', SESSION_TOKEN);
  const settings = parseAgentYml(`model: { auth: sigv4, name: ${JSON.stringify(MODEL)}, region: ${REGION}, maxRetries: 2 }`, { OPENAI_BASE_URL: server.baseURL }).model;
  return { server, model: openAIProvider.create(settings, { logger: silentLogger, environment: {} }) };
}

describe('the OpenAI adapter with model.auth: sigv4', () => {
  it('answers a turn with a request signed for bedrock, its session token signed too, and no bearer key', async () => {
    const { server, model } = await signedModelAgainst([toolCallsReply([{ id: 'call_1', name: 'getWeather', arguments: { city: 'Shanghai' } }])]);

    const reply = await model.complete(REQUEST);

    expect(reply.toolCalls).toMatchObject([{ id: 'call_1', name: 'getWeather', arguments: '{"city":"Shanghai"}' }]);
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent!.rejected).toBeUndefined();
    expect(sent!.headers['authorization']).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request, SignedHeaders=[^,]*x-amz-security-token`));
    expect(sent!.headers['x-amz-security-token']).toBe(SESSION_TOKEN);
    expect(sent!.body).toMatchObject({ model: MODEL, stream: false });
  });

  it('signs a streamed call, whose deltas join to the reply', async () => {
    const { server, model } = await signedModelAgainst([textReply('Sunny, 25 °C in Shanghai.')]);
    const deltas: ModelDelta[] = [];

    const reply = await model.complete({ ...REQUEST, onDelta: (delta) => deltas.push(delta) });

    expect(reply.content).toBe('Sunny, 25 °C in Shanghai.');
    expect(deltas.filter((delta) => delta.kind === 'text').map((delta) => delta.text).join('')).toBe(reply.content);
    expect(server.requests.map((request) => [request.rejected, (request.body as { stream?: unknown }).stream])).toEqual([[undefined, true]]);
  });

  it('signs every attempt anew: a retry made later carries a later date and its own signature', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T10:00:00Z'));
    const { server, model } = await signedModelAgainst((_body, index) => {
      if (index > 0) return textReply('Sunny.');
      // The first attempt fails; the retry is sent a minute later, by the clock the signer reads.
      vi.setSystemTime(new Date('2026-11-26T10:01:00Z'));
      return { status: 503, body: { message: 'Bedrock is busy' }, headers: QUICK_RETRY };
    });

    const reply = await model.complete(REQUEST);

    expect(reply.content).toBe('Sunny.');
    expect(server.requests.map((request) => [request.rejected, request.headers['x-amz-date']])).toEqual([
      [undefined, '20261126T100000Z'],
      [undefined, '20261126T100100Z'],
    ]);
    expect(server.requests[1]!.headers['authorization']).not.toBe(server.requests[0]!.headers['authorization']);
  });

  it('fails with model_auth_failed, saying what to set, when the credential chain finds nothing to sign with, and sends nothing', async () => {
    const server = await startScriptedOpenAIServer([textReply('never sent')], { signedFor: { credentials: CREDENTIALS, service: 'bedrock', region: REGION } });
    servers.push(server);
    // An empty chain, found empty at once: no keys, no profile files, no container or instance role.
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', 'AWS_CONTAINER_CREDENTIALS_FULL_URI']) vi.stubEnv(name, undefined);
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/aws-config');
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/aws-credentials');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    const settings = parseAgentYml(`model: { auth: sigv4, name: ${JSON.stringify(MODEL)}, region: ${REGION} }`, { OPENAI_BASE_URL: server.baseURL }).model;
    const model = openAIProvider.create(settings, { logger: silentLogger, environment: {} });

    const error = await modelFailure(model.complete(REQUEST));

    expect(error.code).toBe('model_auth_failed');
    expect(error.message).toContain('No AWS credentials to sign the model request with');
    expect(error.message).toContain('AWS_ACCESS_KEY_ID');
    expect(server.requests).toEqual([]);
  });

  it('maps Bedrock’s 403 for a wrong secret to model_auth_failed, naming the AWS credentials rather than an API key', async () => {
    const { server, model } = await signedModelAgainst([textReply('never sent')], { secretAccessKey: 'a-wrong-secret-0123456789' });

    const error = await modelFailure(model.complete(REQUEST));

    expect(error.code).toBe('model_auth_failed');
    expect(error.message).toContain('AWS credentials');
    expect(error.message).not.toContain('OPENAI_API_KEY');
    expect(error.detail).toContain('The request signature we calculated does not match');
    // A 403 is final: retrying the same credentials cannot help.
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.rejected).toContain('signature');
  });
});
